"""Where the main script runs under forkserver: each execution of its top level prints a line, and
each worker reports its parent. Under CPython 3.14.1+ (or the linux-3.14 profile) the top level runs
twice, once as __main__ and once in the server as __mp_main__ with the script's own argv, and the
workers are forks of the server."""

import multiprocessing
import os
import sys

print(f"top level: {__name__} pid {os.getpid()} argv {sys.argv[1:]}", flush=True)


def report_parent(queue):
    queue.put(os.getppid())


if __name__ == "__main__":
    queue = multiprocessing.Queue()
    workers = [multiprocessing.Process(target=report_parent, args=(queue,)) for _ in range(2)]
    for worker in workers:
        worker.start()
    parents = {queue.get(timeout=30) for _ in workers}
    for worker in workers:
        worker.join()
    print(f"workers' parents: {sorted(parents)}", flush=True)
