"""Rules about a Dataset as each worker holds it: its own copy of a stream, of CUDA state, of a
Python list that reading makes grow."""

from __future__ import annotations

import ast

from .facts import Hits, ModuleFacts, called, mentions
from .registry import rule

LIST_BUILDERS = ("list", "sorted", "glob.glob", "os.listdir", "json.load", "json.loads")
LARGE_LITERAL_LIST = 16  # items: a short literal list (a mean, a few labels) is no copy-on-read risk
LARGE_KNOWN_LIST = 10_000  # items of a list whose size is known at parse time: fewer is no risk


@rule(
    "DLP005",
    "iterable-dataset-not-sharded",
    "10_iterable_dataset_duplicates",
    "IterableDataset.__iter__ never consults get_worker_info() and nothing here splits its stream per "
    "worker: a risk that each worker yields every item",
)
def dlp005(facts: ModuleFacts) -> Hits:
    """An IterableDataset whose __iter__ never asks which worker it is in, in a module where no
    function splits the stream for it either: PyTorch's documentation splits a range per worker in
    `worker_init_fn`, through `get_worker_info().dataset` (torch.utils.data.IterableDataset,
    example 2). What the module does not show (a split in another module) stays a risk."""
    if any(_splits_the_workers_copy(function) for function in facts.functions):
        return
    for dataset in facts.datasets:
        asks = mentions(dataset.node, "get_worker_info", "worker_info", "shard")
        if dataset.iterable and "__iter__" in dataset.methods and not asks:
            yield dataset.methods["__iter__"], {}


def _splits_the_workers_copy(function: ast.FunctionDef) -> bool:
    """Asks get_worker_info() and sets attributes of the worker's copy of the dataset it gives
    (`worker_info.dataset.start = …`, or through a name bound to it)."""
    if not mentions(function, "get_worker_info"):
        return False
    reaches = any(isinstance(node, ast.Attribute) and node.attr == "dataset" for node in ast.walk(function))
    sets = any(
        isinstance(target, ast.Attribute)
        for node in ast.walk(function)
        if isinstance(node, (ast.Assign, ast.AugAssign))
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
    )
    return reaches and sets


@rule(
    "DLP006",
    "cuda-in-dataset",
    "05_cuda_in_worker",
    "CUDA work inside a Dataset: fails in forked workers; return CPU tensors",
)
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
        return any(_names_cuda(v) for v in values)
    return False


def _names_cuda(value: ast.expr) -> bool:
    """ "cuda", "cuda:0", or torch.device("cuda", …)."""
    if isinstance(value, ast.Call) and called(value) in ("torch.device", "device") and value.args:
        value = value.args[0]
    return isinstance(value, ast.Constant) and str(value.value).startswith("cuda")


@rule(
    "DLP007",
    "python-list-on-dataset",
    "06_memory_growth",
    "Dataset keeps a Python list: under fork each worker's memory grows as it reads it",
)
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
