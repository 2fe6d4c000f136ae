"""Case 22's mechanism: a process puts a tensor on a queue and exits; the receiver takes it DELAY
seconds later, under a sharing strategy (`file_descriptor`, Linux's default, or `file_system`,
macOS's and Windows'). With `stdlib`, the queue is multiprocessing's own, not torch's.

    python tensor_sender_exit_delay.py STRATEGY DELAY [stdlib]

Prints what the receiver found: the tensor, or the error it met, and whether the file of the
sender's resource_sharer socket (file_descriptor) was still there when it asked
(python -m harness experiment tensor_sender_exit_delay records it for case 22's page)."""

import multiprocessing
import os
import sys
import time

import torch
import torch.multiprocessing as mp


def send(queue, strategy, told):
    mp.set_sharing_strategy(strategy)  # in this process too: a spawned one would take the default
    queue.put(torch.arange(8, dtype=torch.float32))
    sharer = multiprocessing.resource_sharer._resource_sharer
    told.put(sharer._address or "")  # the socket the receiver connects to (file_descriptor only)


def main():
    strategy, delay = sys.argv[1], float(sys.argv[2])
    mp.set_sharing_strategy(strategy)
    queues = multiprocessing if sys.argv[3:] == ["stdlib"] else mp
    queue, told = queues.Queue(), multiprocessing.Queue()
    sender = mp.Process(target=send, args=(queue, strategy, told))
    sender.start()
    socket_file = told.get()
    sender.join()
    time.sleep(delay)
    if socket_file:
        state = "still there" if os.path.exists(socket_file) else "removed"
        print(f"the sender's socket file: {state} when the receiver asked", flush=True)
    tensor = queue.get(timeout=30)
    print(f"{strategy}: taken {delay:g} s after the sender exited: sum {float(tensor.sum()):.0f}")


if __name__ == "__main__":
    main()
