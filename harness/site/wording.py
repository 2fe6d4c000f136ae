"""The site's two languages: the words of the generated parts, through one message catalog.

The pages themselves are Markdown files, one per language (`index.md` and `index.zh.md`; a case's
`README.md` and `README.zh.md`). What the hook writes around them (headings, the predict block,
table headings, legends, plot titles and axes) is written in English in the code, as gettext does
it: `t("The code")`, or `N_("...")` where a message is stored to be translated later. Each other
language has a catalog, `harness/site/locale/LANG/LC_MESSAGES/site.po` (msgid: the English message;
msgstr: its translation), read with Babel, as Sphinx and Babel projects keep theirs. A message
without its translation fails the build naming it; `tests/unit/test_site_languages.py` holds the
catalog to the code (every message used is translated, every entry is used, the `{fields}` agree).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from pathlib import Path

LANGUAGES = ("en", "zh")
DEFAULT = "en"
LOCALE_DIR = Path(__file__).parent / "locale"
DOMAIN = "site"
_current = [DEFAULT]


class MissingTranslation(KeyError):
    pass


@contextlib.contextmanager
def language(lang: str) -> Iterator[None]:
    """Render in `lang` inside the block (the hook wraps each page in it)."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language '{lang}' (one of {', '.join(LANGUAGES)})")
    _current.append(lang)
    try:
        yield
    finally:
        _current.pop()


def current() -> str:
    return _current[-1]


def catalog_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.cache
def catalog(lang: str) -> dict[str, str]:
    """The translations of `lang`, by English message; fuzzy or empty entries left out."""
    from babel.messages.pofile import read_po

    with catalog_path(lang).open("rb") as po:
        read = read_po(po, locale=lang)
    return {m.id: m.string for m in read if m.id and m.string and not m.fuzzy}


def N_(message: str) -> str:
    """Marks a message for the catalog where it is stored, to be translated where it is shown."""
    return message


def translate(message: str) -> str:
    """`message` in the current language (the message itself in English)."""
    lang = current()
    if lang == DEFAULT:
        return message
    try:
        return catalog(lang)[message]
    except KeyError:
        raise MissingTranslation(
            f"{catalog_path(lang).relative_to(LOCALE_DIR.parent.parent.parent)} has no translation of "
            f"{message!r}"
        ) from None


def t(message: str, **values: object) -> str:
    """`message` in the current language, with its `{name}` fields filled from `values`."""
    return translate(message).format(**values)


# The lessons of the learning path, in order: what a reader needs first comes first. Each case is
# in exactly one lesson (the hook fails the build otherwise).
LESSONS = [
    (
        N_("1 · How a worker starts"),
        N_(
            "The start method decides what a worker is: a copy of your process (fork), a fresh "
            "interpreter that imports your script again (spawn), or a fork of a server (forkserver). "
            "Read these first: everything else follows from them."
        ),
        [
            "01_missing_main_guard",
            "08_module_side_effects",
            "13_spawn_startup_cost",
            "20_timeout_counts_worker_startup",
        ],
    ),
    (
        N_("2 · What travels to a worker: pickling"),
        N_(
            "Under spawn and forkserver the Dataset, `collate_fn` and `worker_init_fn` are pickled and "
            "sent to every worker. What cannot be pickled, or cannot be found again by name, fails."
        ),
        ["03_lambda_collate", "02_open_file_handle", "07_interactive_main_class"],
    ),
    (
        N_("3 · What a worker inherits: state"),
        N_(
            "A worker holds a copy of the state it started with: random generators, iterators, "
            "logging, threads and their locks, CUDA. Under fork the copy is exact, down to locks held "
            "by threads that no longer exist; under spawn it is rebuilt, or missing."
        ),
        [
            "09_duplicated_randomness",
            "10_iterable_dataset_duplicates",
            "15_persistent_workers_stale_dataset",
            "19_distributed_ranks_workers",
            "18_logging_lost_in_workers",
            "23_main_state_lost_in_workers",
            "11_lock_held_at_fork",
            "04_opencv_thread_deadlock",
            "14_openmp_threads_in_worker",
            "05_cuda_in_worker",
        ],
    ),
    (
        N_("4 · What workers use up: resources"),
        N_(
            "Memory, file descriptors, shared memory and processes: each worker takes its share, and "
            "the limits are the machine's or the container's."
        ),
        [
            "06_memory_growth",
            "21_memory_limit_dataset_copies",
            "12_too_many_open_files",
            "16_dev_shm_too_small",
            "22_tensor_sender_exited",
            "17_pool_inside_worker",
        ],
    ),
]

# The navigation's own sections (the lessons' titles are sections too).
SECTIONS = (N_("Start here"), N_("Manual"), N_("Reference"))
