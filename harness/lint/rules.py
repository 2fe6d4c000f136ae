"""The rules: one small function per code, each reading the module's facts and yielding findings.

A rule yields `(node, fields)`: where the finding is, and the values its message is formatted with.
`RULES` at the end lists every rule with its code, its name, its case and its message; what it
does is its function's docstring (`lint --explain`, harness/lint/explain.py).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from harness.lint.facts import (
    Hits,
    ModuleFacts,
    called,
    dotted,
    is_dataset,
    is_main_guard,
    mentions,
    names_in,
)
from harness.lint.randomness import dlp004
from harness.lint.workers import dlp014, dlp015, dlp016, dlp017

HANDLE_OPENERS = {
    "open": "file",
    "io.open": "file",
    "sqlite3.connect": "database connection",
    "h5py.File": "HDF5 file",
    "lmdb.open": "LMDB environment",
    "socket.socket": "socket",
    "zipfile.ZipFile": "zip file",
    "tarfile.open": "tar file",
}
LIST_BUILDERS = ("list", "sorted", "glob.glob", "os.listdir", "json.load", "json.loads")
SIDE_EFFECTS = ("os.makedirs", "os.mkdir", "shutil.rmtree", "os.remove", "os.unlink")
LARGE_LITERAL_LIST = 16  # items: a short literal list (a mean, a few labels) is no copy-on-read risk
LARGE_KNOWN_LIST = 10_000  # items of a list whose size is known at parse time: fewer is no risk


def dlp001(facts: ModuleFacts) -> Hits:
    """A DataLoader built at module level, outside the `__main__` guard: one finding a statement."""
    for statement in facts.module_level:
        for node in ast.walk(statement):
            if called(node).split(".")[-1] == "DataLoader":
                yield node, {}
                break


def dlp002(facts: ModuleFacts) -> Hits:
    """A lambda or nested function passed as collate_fn/worker_init_fn, or kept on a Dataset."""
    for keyword in facts.callable_keywords:
        value = keyword.value
        nested = isinstance(value, ast.Name) and value.id in facts.nested_functions
        if isinstance(value, ast.Lambda) or nested:
            yield value, {"what": f"`{keyword.arg}`"}
    for dataset in facts.datasets:
        for target, value in dataset.self_assignments("__init__"):
            if isinstance(value, ast.Lambda):
                yield value, {"what": f"`self.{target.attr}`"}


def dlp003(facts: ModuleFacts) -> Hits:
    """An open file, connection or handle kept on a Dataset from __init__."""
    for dataset in facts.datasets:
        for _, value in dataset.self_assignments("__init__"):
            if called(value) in HANDLE_OPENERS:
                yield value, {"what": HANDLE_OPENERS[called(value)]}


def dlp005(facts: ModuleFacts) -> Hits:
    """An IterableDataset whose __iter__ never asks which worker it is in."""
    for dataset in facts.datasets:
        asks = mentions(dataset.node, "get_worker_info", "worker_info", "shard")
        if dataset.iterable and "__iter__" in dataset.methods and not asks:
            yield dataset.methods["__iter__"], {}


def dlp006(facts: ModuleFacts) -> Hits:
    """CUDA work in a Dataset method other than __init__ (the first such call in each method), and
    CUDA tensors made in __init__, in the main process, and kept on the Dataset (`self.x = ….cuda()`):
    every worker receives them."""
    for dataset in facts.datasets:
        for name, method in dataset.methods.items():
            if name == "__init__":
                continue
            cuda = next((node for node in ast.walk(method) if _uses_cuda(node)), None)
            if cuda is not None:
                yield cuda, {}
        for _, value in dataset.self_assignments("__init__"):
            cuda = next((node for node in ast.walk(value) if _uses_cuda(node)), None)
            if cuda is not None:
                yield cuda, {}


def _uses_cuda(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    method = node.func.attr if isinstance(node.func, ast.Attribute) else ""
    if method == "cuda" or called(node).startswith("torch.cuda."):
        return True
    values = list(node.args) + [k.value for k in node.keywords if k.arg == "device"]
    if method == "to" or any(k.arg == "device" for k in node.keywords):
        return any(isinstance(v, ast.Constant) and str(v.value).startswith("cuda") for v in values)
    return False


def dlp007(facts: ModuleFacts) -> Hits:
    """A Python list (comprehension, list-building call, long literal) kept on a Dataset, unless its
    size is known at parse time and small (a literal of a few items, a comprehension or list() over
    `range(N)` with a small literal N): copy-on-read matters for hundreds of thousands of objects."""
    for dataset in facts.datasets:
        for _, value in dataset.self_assignments("__init__"):
            if isinstance(value, ast.List):
                if len(value.elts) > LARGE_LITERAL_LIST:
                    yield value, {}
            elif (isinstance(value, ast.ListComp) or called(value) in LIST_BUILDERS) and (
                _known_size(value) or LARGE_KNOWN_LIST
            ) >= LARGE_KNOWN_LIST:
                yield value, {}


def _known_size(value: ast.expr) -> int | None:
    """The length of a list built over `range(<literal>)`, a comprehension's or list()'s; else None."""
    if isinstance(value, ast.ListComp) and len(value.generators) == 1 and not value.generators[0].ifs:
        source = value.generators[0].iter
    elif called(value) == "list" and len(value.args) == 1:
        source = value.args[0]
    else:
        return None
    bounds = source.args if called(source) == "range" else []
    if bounds and all(isinstance(b, ast.Constant) and isinstance(b.value, int) for b in bounds):
        return len(range(*(b.value for b in bounds)))
    return None


def dlp008(facts: ModuleFacts) -> Hits:
    """Folders made or files removed or written at module level of a script that uses DataLoader."""
    if not facts.uses_dataloader:
        return
    for statement in facts.module_level:
        for node in ast.walk(statement):
            name = called(node) or _method(node)
            if name in SIDE_EFFECTS or name.endswith("mkdir") or _opens_for_writing(node):
                yield node, {"what": f"{name}(…)"}


def _method(node: ast.AST) -> str:
    """'.mkdir' for a method called on an expression that is not a plain name: Path("x").mkdir()."""
    is_method = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    return f"….{node.func.attr}" if is_method else ""


def _opens_for_writing(node: ast.AST) -> bool:
    if called(node) != "open":
        return False
    modes = list(node.args[1:2]) + [k.value for k in node.keywords if k.arg == "mode"]
    return any(isinstance(m, ast.Constant) and isinstance(m.value, str) and "w" in m.value for m in modes)


def dlp009(facts: ModuleFacts) -> Hits:
    """torch.set_num_threads(N), N not 1, in a worker_init_fn."""
    yield from _worker_init_calls(facts, "torch.set_num_threads", allowed=1)


def dlp010(facts: ModuleFacts) -> Hits:
    """cv2.setNumThreads(N), N not 0, in a worker_init_fn."""
    yield from _worker_init_calls(facts, "cv2.setNumThreads", allowed=0)


def _worker_init_calls(facts: ModuleFacts, function: str, allowed: int) -> Hits:
    for definition in facts.worker_init_functions:
        for node in ast.walk(definition):
            if called(node) != function or not node.args:
                continue
            value = node.args[0]
            if not (isinstance(value, ast.Constant) and value.value == allowed):
                yield node, {"what": _literal(value)}


def _literal(node: ast.expr) -> str:
    return repr(node.value) if isinstance(node, ast.Constant) else ast.unparse(node)


def dlp011(facts: ModuleFacts) -> Hits:
    """A loader with workers, not persistent, iterated inside an outer loop: once per loader."""
    flagged: set[str] = set()
    for outer in facts.loops:
        for inner in ast.walk(outer):
            if inner is outer or not isinstance(inner, (ast.For, ast.comprehension)):
                continue
            name = dotted(inner.iter)
            loader = facts.loaders.get(name)
            if loader is not None and not loader.persistent and name not in flagged:
                flagged.add(name)
                yield loader.call, {}


def dlp012(facts: ModuleFacts) -> Hits:
    """Batches from a loader with workers kept as received: [b for b in loader], append(b), list(loader)."""
    for comprehension in facts.comprehensions:
        if isinstance(comprehension, ast.ListComp) and isinstance(comprehension.elt, ast.Name):
            loops = [g for g in comprehension.generators if dotted(g.iter) in facts.loaders]
            if any(comprehension.elt.id in names_in(g.target) for g in loops):
                yield comprehension, {}
    for loop in facts.loops:
        if isinstance(loop, ast.For) and dotted(loop.iter) in facts.loaders:
            received = names_in(loop.target)
            for node in ast.walk(loop):
                kept = node.args[0] if called(node).endswith(".append") and node.args else None
                if isinstance(kept, ast.Name) and kept.id in received:
                    yield node, {}
    for call in facts.calls:
        if called(call) == "list" and call.args and dotted(call.args[0]) in facts.loaders:
            yield call, {}


def dlp013(facts: ModuleFacts) -> Hits:
    """A Dataset class, or a function handed to a DataLoader as collate_fn or worker_init_fn, defined
    under `if __name__ == "__main__":`: a spawned (or forkserver) worker imports the script as
    `__mp_main__`, where the guard is false and the definition does not exist."""
    handed = facts.handed_names
    for statement in facts.tree.body:
        if is_main_guard(statement):
            for node in _defined_in(statement.body):
                if (isinstance(node, ast.ClassDef) and is_dataset(node)) or (
                    isinstance(node, ast.FunctionDef) and node.name in handed
                ):
                    yield node, {"what": node.name}


def _defined_in(body: list[ast.stmt]) -> Iterator[ast.ClassDef | ast.FunctionDef]:
    """Classes and functions defined in a block and in the blocks it nests (if, with, try, loops),
    not inside other definitions."""
    for statement in body:
        if isinstance(statement, (ast.ClassDef, ast.FunctionDef)):
            yield statement
        else:
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(statement, field, [])
                blocks = [h.body for h in inner] if field == "handlers" else [inner]
                for block in blocks:
                    yield from _defined_in(block)


@dataclass(frozen=True)
class Rule:
    code: str
    name: str  # kebab-case, what `lint --explain` and SARIF show beside the code
    case: str
    message: str
    check: Callable[[ModuleFacts], Hits]
    script_only: bool = False  # assumes a main script: not for code run in a notebook


RULES = {
    rule.code: rule
    for rule in (
        Rule(
            "DLP001",
            "dataloader-outside-main-guard",
            "01_missing_main_guard",
            'DataLoader used at module level, outside `if __name__ == "__main__":`',
            dlp001,
            script_only=True,
        ),
        Rule(
            "DLP002",
            "unpicklable-worker-function",
            "03_lambda_collate",
            "{what} is a lambda or a nested function: spawn cannot pickle it",
            dlp002,
        ),
        Rule(
            "DLP003",
            "open-handle-on-dataset",
            "02_open_file_handle",
            "Dataset keeps an open {what} from __init__: spawn cannot pickle it",
            dlp003,
        ),
        Rule(
            "DLP004",
            "random-generator-on-dataset",
            "09_duplicated_randomness",
            "Dataset keeps a random generator: every worker gets a copy in the same state",
            dlp004,
        ),
        Rule(
            "DLP005",
            "iterable-dataset-not-sharded",
            "10_iterable_dataset_duplicates",
            "IterableDataset.__iter__ never consults get_worker_info(): each worker yields everything",
            dlp005,
        ),
        Rule(
            "DLP006",
            "cuda-in-dataset",
            "05_cuda_in_worker",
            "CUDA work inside a Dataset: fails in forked workers; return CPU tensors",
            dlp006,
        ),
        Rule(
            "DLP007",
            "python-list-on-dataset",
            "06_memory_growth",
            "Dataset keeps a Python list: under fork each worker's memory grows as it reads it",
            dlp007,
        ),
        Rule(
            "DLP008",
            "side-effect-at-module-level",
            "08_module_side_effects",
            "side effect at module level ({what}): spawned workers repeat it",
            dlp008,
            script_only=True,
        ),
        Rule(
            "DLP009",
            "torch-threads-in-worker-init",
            "14_openmp_threads_in_worker",
            "torch.set_num_threads({what}) in worker_init_fn: hangs forked workers",
            dlp009,
        ),
        Rule(
            "DLP010",
            "opencv-threads-in-worker-init",
            "04_opencv_thread_deadlock",
            "cv2.setNumThreads({what}) in worker_init_fn: hangs forked workers; use 0",
            dlp010,
        ),
        Rule(
            "DLP011",
            "workers-restarted-every-epoch",
            "13_spawn_startup_cost",
            "DataLoader iterated per epoch without persistent_workers=True: spawn restarts workers each time "
            "(but persistent ones keep the Dataset as it was: cases/15_persistent_workers_stale_dataset)",
            dlp011,
        ),
        Rule(
            "DLP012",
            "batches-kept-from-workers",
            "12_too_many_open_files",
            "received batches kept as they are: each shared tensor holds an open file descriptor",
            dlp012,
        ),
        Rule(
            "DLP013",
            "definition-under-main-guard",
            "07_interactive_main_class",
            '{what} is defined under `if __name__ == "__main__":`: spawned workers cannot find it; '
            "define it at the top level",
            dlp013,
        ),
        Rule(
            "DLP014",
            "persistent-dataset-changed",
            "15_persistent_workers_stale_dataset",
            "`{what}` changes the Dataset of a loader with persistent workers: they keep their old copy",
            dlp014,
        ),
        Rule(
            "DLP015",
            "process-pool-in-worker",
            "17_pool_inside_worker",
            "{what}(…) in code that runs in a DataLoader worker: a daemonic worker cannot have children",
            dlp015,
        ),
        Rule(
            "DLP016",
            "worker-logging-not-configured",
            "18_logging_lost_in_workers",
            "Dataset logs in its workers, but logging is set up in the main process only: spawned "
            "workers drop the records",
            dlp016,
        ),
        Rule("DLP017", "distributed-epoch-or-seed", "19_distributed_ranks_workers", "{what}", dlp017),
    )
}
