"""Case 22's mechanism: a process puts a tensor on a queue and exits; the receiver takes it DELAY
seconds later, under a sharing strategy (`file_descriptor`, Linux's default, or `file_system`,
macOS's and Windows'). With `stdlib`, the queue is multiprocessing's own, not torch's; with
`settle`, the sender waits until its queue's thread has pickled the tensor before it returns.

    python tensor_sender_exit_delay.py STRATEGY DELAY [stdlib] [settle]

Prints what the receiver found: the tensor, or the error it met, and whether the file of the
sender's resource_sharer socket (file_descriptor) was still there when it asked
(python -m harness experiment tensor_sender_exit_delay records it for case 22's page)."""

import multiprocessing
import multiprocessing.resource_sharer
import multiprocessing.util
import os
import sys
import time

import torch
import torch.multiprocessing as mp


def send(queue, strategy, told, settle):
    mp.set_sharing_strategy(strategy)  # in this process too: a spawned one would take the default
    # Last of this process's exit finalizers (those of the queue's thread and of its temporary
    # directory come first): tell the receiver which socket it will connect to, if any.
    multiprocessing.util.Finalize(None, tell_socket, args=(told,), exitpriority=-1000)
    queue.put(torch.arange(8, dtype=torch.float32))
    if settle:  # wait until the queue's thread has pickled the tensor, before this process exits
        sharer = multiprocessing.resource_sharer._resource_sharer
        while strategy == "file_descriptor" and sharer._address is None:
            time.sleep(0.01)


def tell_socket(told):
    told.send(multiprocessing.resource_sharer._resource_sharer._address or "")


def main():
    strategy, delay = sys.argv[1], float(sys.argv[2])
    mp.set_sharing_strategy(strategy)
    queues = multiprocessing if "stdlib" in sys.argv[3:] else mp
    queue = queues.Queue()
    told, tell = multiprocessing.Pipe(duplex=False)
    sender = mp.Process(target=send, args=(queue, strategy, tell, "settle" in sys.argv[3:]))
    sender.start()
    sender.join()
    socket_file = told.recv()
    time.sleep(delay)
    if socket_file:
        present = os.path.exists(socket_file)
        state = "still there" if present else "removed"
        print(f"the sender's socket file: {state} (socket_file_present={present:d})", flush=True)
    tensor = queue.get(timeout=30)
    print(f"{strategy}: taken {delay:g} s after the sender exited: sum {float(tensor.sum()):.0f}")


if __name__ == "__main__":
    main()
