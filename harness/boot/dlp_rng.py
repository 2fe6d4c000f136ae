"""Fingerprints of the random generators a DataLoader worker starts with, taken in the worker once
torch seeded it and the script's worker_init_fn ran, before its first item.

Two workers of one loader that start a generator from the same state draw the same numbers (case
09). What is fingerprinted: the global generators (`random`, numpy's, torch's) and every
`random.Random`, numpy `Generator` or `RandomState` and `torch.Generator` reachable from the
Dataset through attributes, lists, tuples and dicts, a few levels deep (`dataset.transform.rng`,
`dataset.transforms[1].rng`). A fingerprint is a short hash of the state: nothing else is kept.
"""

import collections
import contextlib
import hashlib
import itertools
import sys

DEPTH = 4  # attribute levels followed from the Dataset
ITEMS = 16  # items of a list, tuple or dict looked at: the first ones


def _state(obj):
    """The bytes of a generator's state, or None when `obj` is not a generator."""
    import random

    if isinstance(obj, random.Random) and type(obj).__name__ != "SystemRandom":
        return repr(obj.getstate()).encode()
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(obj, numpy.random.RandomState):
        state = obj.get_state()
        return state[1].tobytes() + repr(state[2:]).encode()
    if numpy is not None and isinstance(obj, numpy.random.Generator):
        return repr(obj.bit_generator.state).encode()
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.Generator):
        return bytes(obj.get_state().numpy())
    return None


def _hash(state):
    return hashlib.sha1(state).hexdigest()[:16]


def _children(obj):
    """(name, value) of what an object holds: its attributes, or a container's first items."""
    if isinstance(obj, (list, tuple)):
        return [(f"[{i}]", value) for i, value in enumerate(obj[:ITEMS])]
    if isinstance(obj, dict):
        items = [(k, v) for k, v in list(obj.items())[:ITEMS] if isinstance(k, (str, int))]
        return [(f"[{k!r}]", value) for k, value in items]
    attributes = getattr(obj, "__dict__", None)
    if not isinstance(attributes, dict) or isinstance(obj, type) or type(obj).__module__ == "builtins":
        return []
    return [(f".{name}", value) for name, value in list(attributes.items())[: ITEMS * 4]]


def _walk(obj, path, depth, seen, found):
    if id(obj) in seen or isinstance(obj, (str, bytes, int, float, bool)) or obj is None:
        return
    seen.add(id(obj))
    state = _state(obj)
    if state is not None:
        found[path] = _hash(state)
    elif depth > 0:
        for name, value in _children(obj):
            _walk(value, path + name, depth - 1, seen, found)


# Containers whose items are Python objects, each one its own allocation: what copy-on-read
# touches. numpy arrays of Python objects (dtype object) and pandas columns of them count too.
COLLECTIONS = (list, tuple, dict, set, frozenset, collections.deque)


def containers(dataset, depth=2):
    """{path: container} of the containers of Python objects the Dataset holds (attributes,
    `depth` deep): lists, tuples, dicts, sets, deques, numpy object arrays, a DataFrame's object
    columns: what copy-on-read would touch."""
    found, todo = {}, [("dataset", dataset, depth)]
    while todo:
        path, obj, left = todo.pop()
        for name, value in _children(obj) if left > 0 else ():
            if isinstance(value, COLLECTIONS) or _objects(value) is not None:
                found[path + name] = value
            elif _is_frame(value):
                found.update(
                    (f"{path}{name}[{column!r}]", series)
                    for column, series in value.items()
                    if _objects(series) is not None
                )
            elif not isinstance(value, (str, bytes, int, float, bool)) and value is not None:
                todo.append((path + name, value, left - 1))
    return found


def _objects(value):
    """A numpy array (or a pandas Series) of Python objects as numpy holds it, None for anything
    else: its items are read by index through `.flat`, which copies nothing."""
    if not getattr(getattr(value, "dtype", None), "hasobject", False):
        return None
    to_numpy = getattr(value, "to_numpy", None)  # a pandas Series: its array, not a copy
    array = to_numpy() if callable(to_numpy) else value
    return array if hasattr(array, "flat") and hasattr(array, "size") else None


def _is_frame(value):
    """A pandas DataFrame (or alike): columns by `items()`, their types in `dtypes`."""
    return hasattr(value, "dtypes") and hasattr(value, "columns") and callable(getattr(value, "items", None))


def length(value):
    """How many items a container holds (an object array's elements, all its dimensions)."""
    array = _objects(value)
    return int(array.size) if array is not None else len(value)


def list_sizes(dataset, depth=2):
    """{path: length} of the containers the Dataset holds (`containers`)."""
    return {path: length(value) for path, value in containers(dataset, depth).items()}


SAMPLED = 32  # items of a container measured, spread over it; the rest counted at their mean


def held_bytes(value, depth=3):
    """About how many bytes of Python objects `value` holds, itself included (sys.getsizeof, down
    `depth` levels of lists, tuples, sets, dicts and object arrays; a large one measured on SAMPLED
    items, the rest counted at their mean). Another numpy array or a tensor counts what getsizeof
    says. Only the items measured are touched: under fork, each object read is a page copied
    (copy-on-read itself), so a list or an object array is sampled by index, spread over it, and a
    dict, set or deque on its first items."""
    size = sys.getsizeof(value)
    array = _objects(value)
    if depth == 0 or not (isinstance(value, COLLECTIONS) or array is not None) or not length(value):
        return size
    count = length(value)
    step = max(1, count // SAMPLED)
    if array is not None:
        sampled = [array.flat[i] for i in range(0, count, step)][:SAMPLED]
        measured = sum(held_bytes(item, depth - 1) for item in sampled)
    elif isinstance(value, (list, tuple)):
        sampled = [value[i] for i in range(0, count, step)][:SAMPLED]
        measured = sum(held_bytes(item, depth - 1) for item in sampled)
    elif isinstance(value, dict):
        sampled = list(itertools.islice(value.items(), SAMPLED))
        measured = sum(held_bytes(key, depth - 1) + held_bytes(item, depth - 1) for key, item in sampled)
    else:
        sampled = list(itertools.islice(value, SAMPLED))
        measured = sum(held_bytes(item, depth - 1) for item in sampled)
    return size + measured * count // len(sampled)


def _global_generators():
    """{path: generator} of the global ones: random's, numpy's legacy one, torch's default."""
    import random

    found = {"random": random._inst}
    numpy, torch = sys.modules.get("numpy"), sys.modules.get("torch")
    if numpy is not None:
        found["numpy.random"] = numpy.random.mtrand._rand
    if torch is not None:
        found["torch"] = torch.default_generator
    return found


def fingerprints(dataset):
    """{path: hash} of the global generators and of those the Dataset holds."""
    found = {path: _hash(_state(generator)) for path, generator in _global_generators().items()}
    with contextlib.suppress(Exception):  # attributes that cannot be read as plain objects
        _walk(dataset, "dataset", DEPTH, set(), found)
    return found
