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
            if inner is not node and isinstance(inner, (ast.FunctionDef, ast.Lambda)):
                if isinstance(inner, ast.FunctionDef):
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
                elif isinstance(value, (ast.ListComp, ast.List)) or called in _LIST_BUILDERS:
                    if not (isinstance(value, ast.List) and len(value.elts) <= 16):
                        self.add(value, "DLP007")
        if _is_iterable_dataset(node) and "__iter__" in methods:
            if not _mentions(node, "get_worker_info", "worker_info", "shard"):
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
        name = _called(node)
        if name.endswith(".cuda") or name.startswith("torch.cuda."):
            return True
        values = list(node.args) + [k.value for k in node.keywords if k.arg == "device"]
        if name.endswith(".to") or any(k.arg == "device" for k in node.keywords):
            return any(isinstance(v, ast.Constant) and str(v.value).startswith("cuda") for v in values)
        return False

    def check_worker_init(self, tree: ast.Module) -> None:
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef):
                continue
            if node.name not in self.worker_init_names and "worker_init" not in node.name:
                continue
            for call in ast.walk(node):
                name = _called(call)
                if not call.__class__ is ast.Call or not call.args:
                    continue
                value = call.args[0]
                if name == "torch.set_num_threads" and not (
                    isinstance(value, ast.Constant) and value.value == 1
                ):
                    self.add(call, "DLP009", what=_literal(value))
                if name == "cv2.setNumThreads" and not (isinstance(value, ast.Constant) and value.value == 0):
                    self.add(call, "DLP010", what=_literal(value))


def lint_source(source: str, path: str = "<string>") -> list[Finding]:
    tree = ast.parse(source, filename=path)
    linter = _Linter(path, tree)
    linter.check_module(tree)
    linter.visit(tree)
    linter.check_worker_init(tree)
    return sorted(set(linter.findings), key=lambda f: (f.line, f.col, f.code))


def python_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        files.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return files


def lint_paths(paths: list[Path]) -> list[Finding]:
    """Findings for every Python file under `paths`; raises FileNotFoundError or SyntaxError."""
    findings: list[Finding] = []
    for file in python_files(paths):
        findings.extend(lint_source(file.read_text(encoding="utf-8"), str(file)))
    return findings
