"""A static pass over Python files for DataLoader pitfalls: `python -m harness lint PATH...`.

Reads the code with `ast`, never runs it. Each finding has a rule code, a position, a message and
the case that shows the pitfall, printed as `path:line:col: CODE message (see cases/NN_slug)`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Rule:
    code: str
    case: str
    message: str


RULES = {
    rule.code: rule
    for rule in (
        Rule(
            "DLP001",
            "01_missing_main_guard",
            'DataLoader used at module level, outside `if __name__ == "__main__":`',
        ),
        Rule(
            "DLP002", "03_lambda_collate", "{what} is a lambda or a nested function: spawn cannot pickle it"
        ),
        Rule(
            "DLP003",
            "02_open_file_handle",
            "Dataset keeps an open {what} from __init__: spawn cannot pickle it",
        ),
        Rule(
            "DLP004",
            "09_duplicated_randomness",
            "Dataset keeps a random generator: every worker gets a copy in the same state",
        ),
        Rule(
            "DLP005",
            "10_iterable_dataset_duplicates",
            "IterableDataset.__iter__ never consults get_worker_info(): each worker yields everything",
        ),
        Rule(
            "DLP006",
            "05_cuda_in_worker",
            "CUDA work inside a Dataset: fails in forked workers; return CPU tensors",
        ),
        Rule(
            "DLP007",
            "06_memory_growth",
            "Dataset keeps a Python list: under fork each worker's memory grows as it reads it",
        ),
        Rule(
            "DLP008",
            "08_module_side_effects",
            "side effect at module level ({what}): spawned workers repeat it",
        ),
        Rule(
            "DLP009",
            "14_openmp_threads_in_worker",
            "torch.set_num_threads({what}) in worker_init_fn: hangs forked workers",
        ),
        Rule(
            "DLP010",
            "04_opencv_thread_deadlock",
            "cv2.setNumThreads({what}) in worker_init_fn: hangs forked workers; use 0",
        ),
        Rule(
            "DLP011",
            "13_spawn_startup_cost",
            "DataLoader iterated per epoch without persistent_workers=True: spawn restarts workers each time",
        ),
        Rule(
            "DLP012",
            "12_too_many_open_files",
            "received batches kept as they are: each shared tensor holds an open file descriptor",
        ),
    )
}

_HANDLE_OPENERS = {
    "open": "file",
    "io.open": "file",
    "sqlite3.connect": "database connection",
    "h5py.File": "HDF5 file",
    "lmdb.open": "LMDB environment",
    "socket.socket": "socket",
    "zipfile.ZipFile": "zip file",
    "tarfile.open": "tar file",
}
_GENERATORS = (
    "np.random.default_rng",
    "numpy.random.default_rng",
    "np.random.RandomState",
    "numpy.random.RandomState",
    "np.random.Generator",
    "random.Random",
    "torch.Generator",
)
_LIST_BUILDERS = ("list", "sorted", "glob.glob", "os.listdir", "json.load", "json.loads")
_SIDE_EFFECTS = ("os.makedirs", "os.mkdir", "shutil.rmtree", "os.remove", "os.unlink")
_CALLABLE_KEYWORDS = ("collate_fn", "worker_init_fn")
# Code run in a notebook (or fed on stdin) has no main module to re-import: these do not apply.
SCRIPT_ONLY_RULES = ("DLP001", "DLP008")


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    col: int
    code: str
    message: str

    @property
    def case(self) -> str:
        return RULES[self.code].case

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.code} {self.message} (see cases/{self.case})"


def dotted(node: ast.AST) -> str:
    """'np.random.default_rng' for the expression np.random.default_rng; '' if not a plain name."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base else ""
    return ""


def _called(node: ast.AST) -> str:
    return dotted(node.func) if isinstance(node, ast.Call) else ""


def _is_dataset(node: ast.ClassDef) -> bool:
    return any(dotted(base).split(".")[-1].endswith("Dataset") for base in node.bases)


def _is_iterable_dataset(node: ast.ClassDef) -> bool:
    return any(dotted(base).split(".")[-1] == "IterableDataset" for base in node.bases)


def _is_main_guard(node: ast.stmt) -> bool:
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    parts = [node.test.left, *node.test.comparators]
    names = {dotted(p) for p in parts} | {p.value for p in parts if isinstance(p, ast.Constant)}
    return "__name__" in names and "__main__" in names


def _mentions(node: ast.AST, *words: str) -> bool:
    for child in ast.walk(node):
        name = (
            child.id
            if isinstance(child, ast.Name)
            else child.attr
            if isinstance(child, ast.Attribute)
            else ""
        )
        if name and any(word in name for word in words):
            return True
    return False


def _self_assignments(function: ast.FunctionDef) -> Iterator[tuple[ast.Attribute, ast.expr]]:
    for node in ast.walk(function):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and dotted(target.value) == "self":
                    yield target, node.value


def _names(target: ast.expr) -> set[str]:
    return {node.id for node in ast.walk(target) if isinstance(node, ast.Name)}


def _builds_list(value: ast.expr, called: str) -> bool:
    """A list comprehension, a list built by a call, or a literal list of more than a few items."""
    if isinstance(value, ast.List):
        return len(value.elts) > 16
    return isinstance(value, ast.ListComp) or called in _LIST_BUILDERS


def _literal(node: ast.expr) -> str:
    return repr(node.value) if isinstance(node, ast.Constant) else ast.unparse(node)


class _Linter(ast.NodeVisitor):
    def __init__(self, path: str, tree: ast.Module) -> None:
        self.path = path
        self.findings: list[Finding] = []
        self.nested_functions: set[str] = set()
        self.worker_init_names: set[str] = set()
        self.uses_dataloader = _mentions(tree, "DataLoader")

    def add(self, node: ast.AST, code: str, **fields: str) -> None:
        message = RULES[code].message.format(**fields)
        self.findings.append(Finding(self.path, node.lineno, node.col_offset + 1, code, message))

    # module level: DataLoader use and side effects outside the guard
    def check_module(self, tree: ast.Module) -> None:
        for statement in tree.body:
            if _is_main_guard(statement) or isinstance(
                statement, (ast.FunctionDef, ast.ClassDef, ast.Import)
            ):
                continue
            if isinstance(statement, ast.ImportFrom):
                continue
            for node in ast.walk(statement):
                if isinstance(node, ast.Call) and _called(node).split(".")[-1] == "DataLoader":
                    self.add(node, "DLP001")
                    break
            if self.uses_dataloader:
                for node in ast.walk(statement):
                    name = _called(node)
                    if name in _SIDE_EFFECTS or name.endswith(".mkdir") or self._opens_for_writing(node):
                        self.add(node, "DLP008", what=f"{name}(…)")

    @staticmethod
    def _opens_for_writing(node: ast.AST) -> bool:
        if _called(node) != "open":
            return False
        modes = [a for a in node.args[1:2]] + [k.value for k in node.keywords if k.arg == "mode"]
        return any(isinstance(m, ast.Constant) and isinstance(m.value, str) and "w" in m.value for m in modes)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        for inner in ast.walk(node):
            if inner is not node and isinstance(inner, ast.FunctionDef):
                self.nested_functions.add(inner.name)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Call(self, node: ast.Call) -> None:
        for keyword in node.keywords:
            if keyword.arg not in _CALLABLE_KEYWORDS:
                continue
            value = keyword.value
            if isinstance(value, ast.Lambda) or (
                isinstance(value, ast.Name) and value.id in self.nested_functions
            ):
                self.add(value, "DLP002", what=f"`{keyword.arg}`")
            if keyword.arg == "worker_init_fn" and isinstance(value, ast.Name):
                self.worker_init_names.add(value.id)
        self.generic_visit(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        if _is_dataset(node):
            self.check_dataset(node)
        self.generic_visit(node)

    def check_dataset(self, node: ast.ClassDef) -> None:
        methods = {m.name: m for m in node.body if isinstance(m, ast.FunctionDef)}
        init = methods.get("__init__")
        if init is not None:
            for target, value in _self_assignments(init):
                called = _called(value)
                if called in _HANDLE_OPENERS:
                    self.add(value, "DLP003", what=_HANDLE_OPENERS[called])
                elif called in _GENERATORS:
                    self.add(value, "DLP004")
                elif isinstance(value, (ast.Lambda,)):
                    self.add(value, "DLP002", what=f"`self.{target.attr}`")
                elif _builds_list(value, called):
                    self.add(value, "DLP007")
        iterable = _is_iterable_dataset(node) and "__iter__" in methods
        if iterable and not _mentions(node, "get_worker_info", "worker_info", "shard"):
            self.add(methods["__iter__"], "DLP005")
        for method in methods.values():
            if method.name == "__init__":
                continue
            for inner in ast.walk(method):
                if self._uses_cuda(inner):
                    self.add(inner, "DLP006")
                    break

    @staticmethod
    def _uses_cuda(node: ast.AST) -> bool:
        if not isinstance(node, ast.Call):
            return False
        method = node.func.attr if isinstance(node.func, ast.Attribute) else ""
        if method == "cuda" or _called(node).startswith("torch.cuda."):
            return True
        values = list(node.args) + [k.value for k in node.keywords if k.arg == "device"]
        if method == "to" or any(k.arg == "device" for k in node.keywords):
            return any(isinstance(v, ast.Constant) and str(v.value).startswith("cuda") for v in values)
        return False

    @staticmethod
    def loaders_with_workers(tree: ast.Module, persistent: bool | None = None) -> dict[str, ast.Call]:
        """{name: DataLoader(...) call} for loaders assigned to a name with num_workers not 0;
        `persistent=False` keeps only those without persistent_workers=True."""
        loaders: dict[str, ast.Call] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and _called(node.value).split(".")[-1] == "DataLoader":
                keywords = {k.arg: k.value for k in node.value.keywords}
                workers = keywords.get("num_workers")
                if workers is None or (isinstance(workers, ast.Constant) and workers.value == 0):
                    continue
                kept_alive = keywords.get("persistent_workers")
                if persistent is False and isinstance(kept_alive, ast.Constant) and kept_alive.value is True:
                    continue
                loaders.update({dotted(t): node.value for t in node.targets if dotted(t)})
        return loaders

    def check_hoarding(self, tree: ast.Module) -> None:
        """Batches from a loader with workers kept as received: [b for b in loader], list.append(b)."""
        loaders = self.loaders_with_workers(tree)
        for node in ast.walk(tree):
            if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and isinstance(node.elt, ast.Name):
                loops = [g for g in node.generators if dotted(g.iter) in loaders]
                if any(node.elt.id in _names(g.target) for g in loops) and isinstance(node, ast.ListComp):
                    self.add(node, "DLP012")
            elif isinstance(node, ast.For) and dotted(node.iter) in loaders:
                received = _names(node.target)
                for call in ast.walk(node):
                    kept = call.args[0] if _called(call).endswith(".append") and call.args else None
                    if isinstance(kept, ast.Name) and kept.id in received:
                        self.add(call, "DLP012")
            elif _called(node) == "list" and node.args and dotted(node.args[0]) in loaders:
                self.add(node, "DLP012")

    def check_epoch_loops(self, tree: ast.Module) -> None:
        """DataLoaders with workers, not persistent, iterated inside an outer loop."""
        loaders = self.loaders_with_workers(tree, persistent=False)
        for outer in ast.walk(tree):
            if not isinstance(outer, (ast.For, ast.While)):
                continue
            for inner in ast.walk(outer):
                if inner is outer or not isinstance(inner, (ast.For, ast.comprehension)):
                    continue
                iterated = dotted(inner.iter)
                if iterated in loaders:
                    self.add(loaders.pop(iterated), "DLP011")

    def check_worker_init(self, tree: ast.Module) -> None:
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef):
                continue
            if node.name not in self.worker_init_names and "worker_init" not in node.name:
                continue
            for call in ast.walk(node):
                name = _called(call)
                if call.__class__ is not ast.Call or not call.args:
                    continue
                value = call.args[0]
                if name == "torch.set_num_threads" and not (
                    isinstance(value, ast.Constant) and value.value == 1
                ):
                    self.add(call, "DLP009", what=_literal(value))
                if name == "cv2.setNumThreads" and not (isinstance(value, ast.Constant) and value.value == 0):
                    self.add(call, "DLP010", what=_literal(value))


def lint_source(source: str, path: str = "<string>", notebook: bool = False) -> list[Finding]:
    """Findings in one file's source; `notebook` for code run interactively (no main module)."""
    tree = ast.parse(source, filename=path)
    linter = _Linter(path, tree)
    linter.check_module(tree)
    linter.visit(tree)
    linter.check_epoch_loops(tree)
    linter.check_hoarding(tree)
    linter.check_worker_init(tree)
    findings = [f for f in set(linter.findings) if not (notebook and f.code in SCRIPT_ONLY_RULES)]
    return sorted(findings, key=lambda f: (f.line, f.col, f.code))


def python_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        files.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return files


def lint_paths(paths: list[Path], notebook: bool = False) -> list[Finding]:
    """Findings for every Python file under `paths`; raises OSError or SyntaxError."""
    findings: list[Finding] = []
    for file in python_files(paths):
        findings.extend(lint_source(file.read_text(encoding="utf-8"), str(file), notebook))
    return findings
