"""The site's two languages: the words of the generated parts, and the learning path.

The pages themselves are Markdown files, one per language (`index.md` and `index.zh.md`; a case's
`README.md` and `README.zh.md`). What the hook writes around them (headings, the predict block,
table headings) comes from TEXT here, in the language of the page being built. Code, outcomes,
signatures and plots are shared: they are the same data in both languages.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

LANGUAGES = ("en", "zh")
DEFAULT = "en"
_current = [DEFAULT]


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


def t(key: str, **values: object) -> str:
    """The text `key` in the current language, with `{name}` fields filled from `values`."""
    return TEXT[key][current()].format(**values)


# The lessons of the learning path, in order: what a reader needs first comes first. Each case is
# in exactly one lesson (the hook fails the build otherwise).
LESSONS = [
    (
        {"en": "1 · How a worker starts", "zh": "1 · worker 进程是怎么启动的"},
        {
            "en": "The start method decides what a worker is: a copy of your process (fork), a fresh "
            "interpreter that imports your script again (spawn), or a fork of a server (forkserver). "
            "Read these first: everything else follows from them.",
            "zh": "启动方法决定了 worker 进程是什么：当前进程的一份拷贝（fork）、重新导入你的脚本的全新"
            "解释器（spawn），还是从服务进程 fork 出来的子进程（forkserver）。先读这几课，后面的内容都建立"
            "在这之上。",
        },
        ["01_missing_main_guard", "08_module_side_effects", "13_spawn_startup_cost"],
    ),
    (
        {"en": "2 · What travels to a worker: pickling", "zh": "2 · 什么会被发送给 worker：pickle 序列化"},
        {
            "en": "Under spawn and forkserver the Dataset, `collate_fn` and `worker_init_fn` are pickled "
            "and sent to every worker. What cannot be pickled, or cannot be found again by name, fails.",
            "zh": "在 spawn 和 forkserver 下，Dataset、`collate_fn` 和 `worker_init_fn` 都要先经过 pickle "
            "序列化再发给每个 worker。无法 pickle 的对象，或者无法按名字重新找到的对象，都会出错。",
        },
        ["03_lambda_collate", "02_open_file_handle", "07_interactive_main_class"],
    ),
    (
        {"en": "3 · What a worker inherits: state", "zh": "3 · worker 继承了什么：状态"},
        {
            "en": "A worker holds a copy of the state it started with: random generators, iterators, "
            "logging, threads and their locks, CUDA. Under fork the copy is exact, down to locks held by "
            "threads that no longer exist; under spawn it is rebuilt, or missing.",
            "zh": "worker 手里是启动那一刻状态的一份拷贝：随机数生成器、迭代器、日志配置、线程和它们持有的"
            "锁、CUDA。fork 下拷贝得一模一样，连已经不存在的线程持有的锁也一并拷了过去；spawn 下则是重新"
            "构建，或者干脆没有。",
        },
        [
            "09_duplicated_randomness",
            "10_iterable_dataset_duplicates",
            "15_persistent_workers_stale_dataset",
            "19_distributed_ranks_workers",
            "18_logging_lost_in_workers",
            "11_lock_held_at_fork",
            "04_opencv_thread_deadlock",
            "14_openmp_threads_in_worker",
            "05_cuda_in_worker",
        ],
    ),
    (
        {"en": "4 · What workers use up: resources", "zh": "4 · worker 消耗的资源"},
        {
            "en": "Memory, file descriptors, shared memory and processes: each worker takes its share, "
            "and the limits are the machine's or the container's.",
            "zh": "内存、文件描述符、共享内存和进程：每个 worker 都要占一份，而上限由机器或容器决定。",
        },
        [
            "06_memory_growth",
            "12_too_many_open_files",
            "16_dev_shm_too_small",
            "17_pool_inside_worker",
        ],
    ),
]

# The sections of the navigation, by their English title (the nav is built in English and renamed).
NAV = {
    "Start here": {"en": "Start here", "zh": "从这里开始"},
    "Reference": {"en": "Reference", "zh": "参考"},
    **{title["en"]: title for title, _, _ in LESSONS},
}

_OUTCOME_CHOICES = {
    "en": "**ok**: it finishes, correct · **crash**: an exception or a killed worker · **hang**: it stops "
    "making progress · **wrong**: it finishes with a wrong result · **leak**: memory or files keep "
    "growing · **slow**: correct, but far slower.",
    "zh": "**ok**：正常跑完，结果正确 · **crash**：抛出异常，或 worker 被杀 · **hang**：卡住，不再"
    "有进展 · **wrong**：能跑完，但结果是错的 · **leak**：内存或文件句柄不断增长 · **slow**：结果"
    "正确，但慢得多。",
}

TEXT: dict[str, dict[str, str]] = {
    # The predict block at the top of a case page.
    "predict.heading": {"en": "Predict first", "zh": "先猜一猜"},
    "predict.intro": {
        "en": "Before you read on: look at `broken.py`, then decide what it does",
        "zh": "往下读之前，先看看 `broken.py`，然后判断它会怎样",
    },
    "predict.fork": {
        "en": "under **fork** (Linux, Python ≤ 3.13)?",
        "zh": "在 **fork** 下（Linux，Python ≤ 3.13）？",
    },
    "predict.forkserver": {
        "en": "under **forkserver** (Linux, Python ≥ 3.14)?",
        "zh": "在 **forkserver** 下（Linux，Python ≥ 3.14）？",
    },
    "predict.spawn": {
        "en": "under **spawn** (Windows, macOS)?",
        "zh": "在 **spawn** 下（Windows、macOS）？",
    },
    "predict.choices": {"en": "Choose one for each: ", "zh": "每一问选一个："},
    "predict.choice-list": _OUTCOME_CHOICES,
    "predict.answer": {
        "en": "What the harness observed (open it once you have chosen)",
        "zh": "harness 实际观察到的结果（选好了再展开）",
    },
    "predict.answer-intro": {
        "en": "From the results files ({files}), not typed in: `broken.py` and `fixed.py` in each column.",
        "zh": "以下来自结果文件（{files}），不是手写的：`broken.py` 和 `fixed.py` 在每一列下的结果。",
    },
    "predict.no-results": {
        "en": "No results file is recorded yet: run `nox -s reproduce` and `nox -s verify`.",
        "zh": "还没有记录结果文件：请运行 `nox -s reproduce` 和 `nox -s verify`。",
    },
    # The exercise.
    "exercise.heading": {"en": "Exercise", "zh": "练习"},
    "exercise.intro": {
        "en": "Without reading `fixed.py` yet: change your own copy of `broken.py` so that it runs "
        "under spawn and forkserver as well as under fork, then let the harness judge it.",
        "zh": "先别看 `fixed.py`：修改你自己的一份 `broken.py`，让它在 spawn、forkserver 和 fork 下都能正确"
        "运行，然后让 harness 来判断。",
    },
    "exercise.see": {"en": "watch broken.py fail, as above", "zh": "先看 broken.py 怎么出错（同上）"},
    "exercise.copy": {"en": "your copy: edit it", "zh": "你的副本：在它上面改"},
    "exercise.check": {
        "en": "runs it under every profile, to its end, and lints it",
        "zh": "在每个 profile 下把它完整跑一遍，并做静态检查",
    },
    "exercise.done": {
        "en": "You are done when `check` finds no pitfall: every profile **ok** and no lint finding. "
        "Then compare your change with the diff below. `dataloader-pitfalls check` (or `dlp check`) "
        "does the same where the package is installed.",
        "zh": "当 `check` 找不到任何陷阱时就完成了：每个 profile 都是 **ok**，静态检查也没有报告。然后再"
        "和下面的 diff 对照。安装了本项目的环境里，`dataloader-pitfalls check`（或 `dlp check`）效果相同。",
    },
    "exercise.stdin": {
        "en": "The case runs as a notebook does, so `check` reads the code on standard input.",
        "zh": "这个案例模拟 Notebook 的运行方式，所以 `check` 从标准输入读取代码。",
    },
    "exercise.shm": {
        "en": "`--shm-mb {mb}` gives the runs a {mb} MB `/dev/shm`, as in a Docker container (Linux only).",
        "zh": "`--shm-mb {mb}` 让每次运行只有 {mb} MB 的 `/dev/shm`，和 Docker 容器一样（仅限 Linux）。",
    },
    "exercise.gpu": {
        "en": "This case needs a CUDA GPU: without one, its runs are `skipped`, not judged.",
        "zh": "这个案例需要 CUDA GPU：没有 GPU 时，运行结果是 `skipped`（跳过），不做判断。",
    },
    # Getting the code: the home page's first commands, and each exercise's.
    "code.intro": {
        "en": "**Run a case yourself** (Python 3.10+, git and pipx: `sudo apt install python3-venv pipx git` "
        "on Debian and Ubuntu, `brew install pipx` on macOS; the README has Windows):",
        "zh": "**自己动手运行一个案例**（需要 Python 3.10+、git 和 pipx：Debian 和 Ubuntu 上是 "
        "`sudo apt install python3-venv pipx git`，macOS 上是 `brew install pipx`；Windows 见 README）：",
    },
    "code.clone": {"en": "the code", "zh": "获取代码"},
    "code.run-one": {
        "en": "case 03 under every profile: broken.py fails under spawn and forkserver",
        "zh": "在每个 profile 下运行案例 03：broken.py 在 spawn 和 forkserver 下出错",
    },
    "code.after": {
        "en": "Without `-- 03` it runs every case. On Linux the first run downloads torch's CPU-only build, "
        "about 200 MB.",
        "zh": "去掉 `-- 03` 就运行全部案例。在 Linux 上，第一次运行会下载 torch 只支持 CPU 的版本，"
        "大约 200 MB。",
    },
    "code.unset": {
        "en": "`REPOSITORY` stands for the repository's address, which this build of the site does not "
        "know: whoever publishes it sets `repo_url` in `mkdocs.yml`.",
        "zh": "`REPOSITORY` 代表仓库的地址，本站的这次构建并不知道它：由发布本站的人在 `mkdocs.yml` 里设置 "
        "`repo_url`。",
    },
    # The rest of a case page.
    "code.heading": {"en": "The code", "zh": "代码"},
    "code.from": {
        "en": "From `{folder}/`, included from the files themselves:",
        "zh": "来自 `{folder}/`，直接从文件本身引入：",
    },
    "observed.heading": {"en": "Observed", "zh": "实测结果"},
    "observed.head": {"en": "| column | broken.py | fixed.py |", "zh": "| 列 | broken.py | fixed.py |"},
    "observed.from-files": {"en": "The results files they come from:", "zh": "这些结果来自以下结果文件："},
    "differences.observed": {"en": "`{profile}` observed ({label})", "zh": "`{profile}` 实测（{label}）"},
    "differences.emulated": {"en": "`{profile}` emulated here", "zh": "`{profile}` 在这里的模拟"},
    "differences.wine": {
        "en": "`windows` (Windows binaries under Wine)",
        "zh": "`windows`（Wine 下的 Windows 二进制文件）",
    },
    "differences.intro": {
        "en": "{real} against {emulated}: cells that differ, {count}.",
        "zh": "{real} 对比 {emulated}：{count} 个单元格不同。",
    },
    "differences.head": {
        "en": "| case | variant | {real} | {emulated} |",
        "zh": "| 案例 | 版本 | {real} | {emulated} |",
    },
    "differences.none": {
        "en": "No results file holds a column observed on its own system beside an emulated one yet.\n",
        "zh": "还没有哪个结果文件在模拟的列旁边提供在真实系统上实测的列。\n",
    },
    "windows.title": {
        "en": "On Windows: what Windows' own Python and torch printed ({how}, on Linux)",
        "zh": "在 Windows 上：Windows 自己的 Python 和 torch 打印了什么（{how}，运行在 Linux 上）",
    },
    "windows.intro": {
        "en": "Run by the harness with the official Windows binaries under Wine, not on Windows; the "
        "times are Wine's, not Windows'.",
        "zh": "由 harness 在 Wine 下用 Windows 官方二进制文件运行，不是在 Windows 上；时间是 Wine 的，"
        "不是 Windows 的。",
    },
    "windows.variant": {
        "en": "`{variant}.py`: **{outcome}** after {seconds} s.",
        "zh": "`{variant}.py`：**{outcome}**，用时 {seconds} 秒。",
    },
    "windows.skipped": {
        "en": "`{variant}.py`: not run under Wine: {reason}.",
        "zh": "`{variant}.py`：没有在 Wine 下运行：{reason}。",
    },
    "observed.none": {
        "en": '!!! warning "No results recorded"\n    Run `nox -s reproduce` and `nox -s verify`.\n',
        "zh": '!!! warning "还没有记录结果"\n    请运行 `nox -s reproduce` 和 `nox -s verify`。\n',
    },
    "stacks.title": {
        "en": "Stacks at the timeout: {variant}, {profile}",
        "zh": "超时时的调用栈：{variant}，{profile}",
    },
    "stacks.python": {"en": "Python stack of worker {pid}:", "zh": "worker {pid} 的 Python 调用栈："},
    "stacks.native": {
        "en": "Native stack of worker {pid} (py-spy):",
        "zh": "worker {pid} 的原生调用栈（py-spy）：",
    },
    "stacks.none": {"en": "No native stacks were recorded.", "zh": "没有记录原生调用栈。"},
    # Table cells.
    "cell.none": {"en": "not recorded", "zh": "未记录"},
    "cell.unverified": {"en": "expected {outcome}, unverified", "zh": "预期为 {outcome}，尚未验证"},
    "cell.mismatch": {"en": "MISMATCH: expected {outcome}", "zh": "不一致：预期为 {outcome}"},
    "cell.unconfirmed": {"en": "not yet observed on {system}", "zh": "尚未在 {system} 上实测"},
    # The comparison page.
    "comparison.case": {"en": "case", "zh": "案例"},
    "comparison.fixed-ok": {"en": "fixed.py: ok, as expected", "zh": "fixed.py：ok，符合预期"},
    "column.kind.native": {"en": "observed", "zh": "实测"},
    "column.kind.emulated": {"en": "emulated on Linux", "zh": "在 Linux 上模拟"},
    "column.kind.wine": {"en": "Windows binaries under Wine", "zh": "Wine 下的 Windows 二进制文件"},
    "legend.title": {"en": "Legend", "zh": "图例"},
    "legend.ok": {"en": "finishes, correct", "zh": "正常跑完，结果正确"},
    "legend.crash": {"en": "an exception or a killed worker", "zh": "抛出异常，或 worker 被杀"},
    "legend.hang": {"en": "stops making progress", "zh": "卡住，不再有进展"},
    "legend.wrong": {"en": "finishes with a wrong result", "zh": "能跑完，但结果是错的"},
    "legend.leak": {"en": "memory or files keep growing", "zh": "内存或文件句柄不断增长"},
    "legend.slow": {"en": "correct, but far slower", "zh": "结果正确，但慢得多"},
    "legend.skipped": {"en": "not run here (a need unmet)", "zh": "这里没有运行（缺少所需条件）"},
    "legend.fixed": {
        "en": "fixed.py: ok (its outcome is shown in full where it is not)",
        "zh": "fixed.py：ok（不是 ok 时完整显示其结果）",
    },
    "legend.unconfirmed": {
        "en": "a note inside: an expectation not yet observed on the real system",
        "zh": "内有说明：某个预期尚未在真实系统上实测",
    },
    "legend.mismatch": {
        "en": "observed differs from case.toml's expectation",
        "zh": "实测结果与 case.toml 的预期不一致",
    },
    "legend.emulated": {
        "en": "emulated column (hatched): imitated on Linux, not the system itself",
        "zh": "模拟列（斜线底纹）：在 Linux 上模仿，并非该系统本身",
    },
    "legend.details": {
        "en": "Tap or click a badge to read the run's signature: the error or the line that tells it.",
        "zh": "点击徽标可查看这次运行的特征：错误信息或说明问题的那一行。",
    },
    "column.native": {"en": "observed: {label}", "zh": "实测：{label}"},
    "column.wine": {"en": "{how}, on Linux", "zh": "{how}，运行在 Linux 上"},
    "column.emulated": {
        "en": "emulated on {system}, Python {python}",
        "zh": "在 {system}、Python {python} 上模拟",
    },
    "profiles.item": {
        "en": "- **{title}** (`--profile {name}`): {imposes} In the table: {seen} {limits}",
        "zh": "- **{title}**（`--profile {name}`）：{imposes}表中：{seen}{limits}",
    },
    "profiles.emulated": {"en": "emulated here as: {how}.", "zh": "在这里的模拟方式：{how}。"},
    "profiles.wine": {
        "en": "run here by {how}: Windows' own binaries, on Linux, not Windows.",
        "zh": "在这里由 {how} 运行：是 Windows 自己的二进制文件，但运行在 Linux 上，不是 Windows。",
    },
    "profiles.native": {"en": "observed natively.", "zh": "在原生系统上实测。"},
    "recorded.title": {
        "en": '!!! info "Where these observations come from"',
        "zh": '!!! info "这些结果从哪里来"',
    },
    "recorded.none": {
        "en": '!!! warning "No results recorded yet"\n    Run `nox -s reproduce` and `nox -s verify`.\n',
        "zh": '!!! warning "还没有记录结果"\n    请运行 `nox -s reproduce` 和 `nox -s verify`。\n',
    },
    "cause.head": {
        "en": "| difference | fork | forkserver (3.14.1+) | spawn | shown by | ",
        "zh": "| 差异 | fork | forkserver（3.14.1+） | spawn | 对应案例 | ",
    },
    "cause.column": {"en": "broken, {profile}", "zh": "broken，{profile}"},
    # A figure whose runs were all skipped (harness/site/figures.py).
    "figure.unrecorded": {
        "en": "(not recorded: skipped where the results were recorded)",
        "zh": "（未记录：记录结果的机器上跳过了这些运行）",
    },
    # An experiment's count of runs, and the separator of a list of its figures
    # (harness/site/experiment_figures.py).
    "figure.count": {"en": "{count} of {total}", "zh": "{total} 次中 {count} 次"},
    "figure.list_separator": {"en": ", ", "zh": "、"},
    # Plots that are missing.
    "plot.missing": {
        "en": '!!! warning "No {what} to draw"\n'
        "    No results file records it yet: run `nox -s {session}`.\n",
        "zh": '!!! warning "没有可画的{what}"\n    还没有结果文件记录它：请运行 `nox -s {session}`。\n',
    },
    "plot.memory": {"en": "memory series", "zh": "内存曲线"},
    "plot.wait": {"en": "first-batch waits", "zh": "首个 batch 的等待时间"},
    "plot.memory.title": {
        "en": "{profile}: each worker's private memory (USS)",
        "zh": "{profile}：每个 worker 的私有内存（USS）",
    },
    "plot.memory.x": {"en": "seconds since the script started", "zh": "脚本启动后的秒数"},
    "plot.memory.fact": {
        "en": "{variant} under {profile}: baseline ≤ {baseline} MB, growth ≤ {growth} MB",
        "zh": "{variant} 在 {profile} 下：基线 ≤ {baseline} MB，增长 ≤ {growth} MB",
    },
    "plot.memory.alt": {
        "en": "Worker memory over time for case 06, broken (Python list) against fixed (numpy array): "
        "{facts}",
        "zh": "案例 06 中 worker 内存随时间的变化，broken（Python list）对比 fixed（numpy 数组）：{facts}",
    },
    "plot.wait.first": {"en": "first epoch: wait for its first batch", "zh": "第一个 epoch：等待首个 batch"},
    "plot.wait.later": {
        "en": "later epochs: mean wait for their first batch",
        "zh": "之后的 epoch：等待首个 batch 的平均时间",
    },
    "plot.wait.x": {"en": "seconds (log scale)", "zh": "秒（对数刻度）"},
    "plot.wait.fact": {
        "en": "{column}: broken {broken}, fixed {fixed}",
        "zh": "{column}：broken {broken}，fixed {fixed}",
    },
    "plot.wait.alt": {
        "en": "Case 13 in every column: how long each epoch waited for its first batch, broken "
        "(new workers every epoch) against fixed (persistent workers); later epochs: {facts}",
        "zh": "案例 13 在每一列下：每个 epoch 等待首个 batch 的时间，broken（每个 epoch 都新建 worker）对比 "
        "fixed（persistent workers）；之后的 epoch：{facts}",
    },
    "plot.bench.not-persistent": {"en": "{method}, not persistent", "zh": "{method}，非 persistent"},
    "plot.bench.best": {
        "en": "{kind} under {method}: best {best}",
        "zh": "{kind} 在 {method} 下：最佳 {best}",
    },
    "plot.bench.throughput-title": {"en": "{kind} workload (prefetch 2)", "zh": "{kind} 负载（prefetch 2）"},
    "plot.bench.throughput-y": {"en": "samples/s (median, min–max)", "zh": "样本/秒（中位数，最小–最大）"},
    "plot.bench.throughput-alt": {
        "en": "Throughput against num_workers per start method; {facts}",
        "zh": "各启动方法下吞吐量随 num_workers 的变化；{facts}",
    },
    "plot.bench.first-fact": {
        "en": "{kind} under {method} with {n} workers: {seconds} s",
        "zh": "{kind} 在 {method} 下、{n} 个 worker：{seconds} 秒",
    },
    "plot.bench.first-title": {
        "en": "{kind} workload: time to the first batch",
        "zh": "{kind} 负载：首个 batch 的耗时",
    },
    "plot.bench.first-y": {"en": "seconds (median, min–max)", "zh": "秒（中位数，最小–最大）"},
    "plot.bench.first-alt": {
        "en": "Time to the first batch against num_workers per start method; {facts}",
        "zh": "各启动方法下首个 batch 的耗时随 num_workers 的变化；{facts}",
    },
    "plot.runtime.title": {
        "en": "Time to run each fixed script, per column",
        "zh": "每个 fixed 脚本在每一列下的运行时间",
    },
    "plot.runtime.x": {"en": "case (fixed script)", "zh": "案例（fixed 脚本）"},
    "plot.runtime.y": {"en": "seconds, start to exit", "zh": "秒（从启动到退出）"},
    "plot.runtime.skipped": {"en": "skipped (not run there)", "zh": "跳过（没有在那里运行）"},
    "plot.runtime.alt": {
        "en": "Bar chart of the time each fixed script took from start to exit, per column; mean {means}",
        "zh": "每个 fixed 脚本从启动到退出所用时间的柱状图，按列分组；平均值 {means}",
    },
    "plot.startup": {"en": "run times", "zh": "运行时间"},
    "plot.throughput": {"en": "throughput", "zh": "吞吐量"},
    "plot.first-batch": {"en": "time to the first batch", "zh": "首个 batch 的耗时"},
}

# The profiles' own words (harness/profiles.py) in the other languages, keyed by the English text as
# gettext keys a message by itself: what each imposes, and what an emulation of it cannot show.
PROFILE_TEXT = {
    "zh": {
        (
            "fork, the default start method on Linux up to Python 3.13."
        ): "fork，Linux 上直到 Python 3.13 的默认启动方法。",
        (
            "forkserver, the default on Linux from Python 3.14, as CPython 3.14.1+ and 3.13.8+ run it: "
            "the server imports the main script once and every worker is a fork of that server "
            "(CPython PR 135295). The import sees the script's `sys.argv` from 3.14.3 and 3.13.12 "
            "(gh-143706), as here; 3.14.1, 3.14.2 and 3.13.8 to 3.13.11 give it the server's own. "
            "Older interpreters never preloaded the main script; there the harness applies the fixed "
            "behaviour."
        ): (
            "forkserver，Python 3.14 起 Linux 上的默认启动方法，按 "
            "CPython 3.14.1+ 和 3.13.8+ 的行为运行：服务进程导入一次主脚本，每个 "
            "worker 都是从这个服务进程 fork 出来的（CPython PR 135295）。从 "
            "3.14.3 和 3.13.12 起，这次导入看到的是脚本自己的 "
            "`sys.argv`（gh-143706），这里也是如此；3.14.1、3.14.2 以及 "
            "3.13.8 到 3.13.11 给它的是服务进程自己的 `sys.argv`。"
            "更早的解释器从不预加载主脚本，harness 在那里套用修复后的行为。"
        ),
        (
            "An emulation on an older Python cannot show the rest of 3.14: its error texts (a lambda "
            "fails with `PicklingError: Can't pickle local object <function …>`), the forkserver's "
            "authentication, free-threaded builds, or what torch does differently on 3.14."
        ): (
            "在较旧的 Python 上模拟，看不到 3.14 的其余变化：它的报错文本（lambda 会报 "
            "`PicklingError: Can't pickle local object "
            "<function …>`）、forkserver 的认证、"
            "自由线程（free-threaded）构建，以及 torch 在 3.14 上的不同行为。"
        ),
        (
            "nothing: the official Windows CPython and torch's Windows wheels run the script, with "
            "spawn and torch's `file_system` sharing strategy because that is what Windows has. On "
            "Windows itself natively; on Linux under Wine, which runs the same binaries."
        ): (
            "不做任何改动：由 Windows 官方的 CPython 和 torch 的 Windows "
            "wheel 运行脚本，spawn 和 torch 的 `file_system` "
            "共享策略是因为 Windows 本来就只有它们。在 Windows 上原生运行；在 Linux "
            "上通过 Wine 运行同样的二进制文件。"
        ),
        (
            "Under Wine the binaries are Windows', the system is not: Windows' own process creation "
            "and its cost (Wine's timings are not Windows timings), the console, antivirus scanning, "
            "paths on drives other than Wine's Z:, and a GPU driver are not shown."
        ): (
            "在 Wine 下二进制文件是 Windows 的，系统却不是：Windows "
            "自己的进程创建及其开销（Wine 的耗时不是 Windows 的耗时）、控制台、杀毒软件扫描、"
            "Wine 的 Z: 以外盘符上的路径，以及 GPU 驱动都看不到。"
        ),
        (
            "spawn, the only start method on Windows; torch's `file_system` sharing strategy, its only "
            "one there; no SIGCHLD handler in the DataLoader (torch installs none on Windows); and "
            "what Windows lacks hidden from the script: the fork and forkserver start methods, "
            "`os.fork`, the `resource` and `fcntl` modules. Every descriptor a process inherits is "
            "made non-inheritable, as handles are on Windows: otherwise the `torch_shm_manager` that a "
            "Linux worker starts (Windows has none) would hold the worker's spawn sentinel open and "
            "the DataLoader would wait 5 s per worker at shutdown."
        ): (
            "spawn，Windows 上唯一的启动方法；torch 的 `file_system` "
            "共享策略，也是那里唯一的一种；DataLoader 不安装 SIGCHLD "
            "处理函数（torch 在 Windows 上不装）；并对脚本隐藏 Windows 没有的东西："
            "fork 和 forkserver 启动方法、`os.fork`、`resource` 和 "
            "`fcntl` 模块。每个进程继承来的文件描述符都改为不可继承，和 Windows "
            "上的句柄一样：否则 Linux 上 worker 启动的 "
            "`torch_shm_manager`（Windows 上没有）会一直占着 worker 的 "
            "spawn 哨兵管道，DataLoader 关闭时每个 worker 都要等 5 秒。"
        ),
        (
            "An emulation on Linux cannot show Windows itself: process creation (slower than a Linux "
            "spawn), the console and its code page, file locking and paths, `sys.platform`, the "
            "kernel32 watchdog that a worker uses to notice its parent's death, or a GPU driver's "
            "behaviour."
        ): (
            "在 Linux 上模拟看不到 Windows 本身：进程创建（比 Linux 上的 spawn "
            "更慢）、控制台和它的代码页、文件锁和路径、`sys.platform`、worker "
            "用来发现父进程退出的 kernel32 看门狗，以及 GPU 驱动的行为。"
        ),
        (
            "spawn, the default on macOS since Python 3.8, and torch's `file_system` sharing strategy, "
            "its only one there."
        ): (
            "spawn，Python 3.8 起 macOS 上的默认启动方法；以及 torch 的 "
            "`file_system` 共享策略，也是那里唯一的一种。"
        ),
        (
            "An emulation on Linux cannot show macOS itself: its default limit of 256 open files, "
            "shared memory without /dev/shm, Apple's libraries (Accelerate, Objective-C) in forked "
            "processes, or the resource tracker that torch leaks at exit on Python 3.12.2+. It keeps "
            "what Linux and macOS share: each spawned worker starts `torch_shm_manager`, which holds "
            "the worker's spawn sentinel open, so the DataLoader waits 5 s per worker at shutdown (on "
            "a Mac inferred from the same code path, not observed there)."
        ): (
            "在 Linux 上模拟看不到 macOS 本身：默认只能打开 256 个文件、没有 "
            "/dev/shm 的共享内存、fork 出的进程里的 Apple 库（Accelerate、"
            "Objective-C），以及 Python 3.12.2+ 上 torch "
            "退出时泄漏的resource tracker。它保留了 Linux 和 macOS 共有的行为："
            "每个 spawn 出来的 worker 都会启动 `torch_shm_manager`，"
            "它一直占着 worker 的 spawn 哨兵管道，于是 DataLoader 关闭时每个 "
            "worker 都要等 5 秒（在 Mac 上这是从同一代码路径推断的，还没有在 Mac "
            "上实际观察到）。"
        ),
    },
}

# The differences between the start methods (pages.CAUSES), in the other languages, by the English
# aspect of each row (a row added in English without its translation fails the build).
CAUSES = {
    "zh": {
        "Process start": (
            "进程如何启动",
            "复制正在运行的父进程",
            "从一个已导入主脚本的服务进程 fork",
            "启动全新的解释器",
        ),
        "Main script run again": (
            "主脚本是否再次运行",
            "从不",
            "在服务进程里运行一次，名为 `__mp_main__`",
            "每个 worker 里都运行一次，名为 `__mp_main__`",
        ),
        "Top-level side effects": (
            "模块顶层的副作用",
            "只发生一次",
            "发生两次：脚本本身和服务进程",
            "每个 worker 里都再发生一次",
        ),
        "Pickling needs": (
            "需要 pickle 的对象",
            "无：对象直接被复制",
            "Dataset、collate_fn、worker_init_fn",
            "Dataset、collate_fn、worker_init_fn",
        ),
        "Classes defined in a notebook": (
            "Notebook 里定义的类",
            "随进程一起被复制",
            "无法导入：找不到",
            "无法导入：找不到",
        ),
        "Open files and handles": (
            "打开的文件和句柄",
            "被继承，读写位置共享",
            "无法 pickle",
            "无法 pickle",
        ),
        "Threads and locks": (
            "线程和锁",
            "被复制，但线程没有跟过来",
            "服务进程自己的：脚本顶层启动的那些",
            "从全新状态开始",
        ),
        "Library thread pools": (
            "库的线程池",
            "被复制后处于不一致状态（OpenCV、OpenMP）",
            "服务进程的，如果脚本顶层用过它们",
            "每个 worker 自己新建",
        ),
        "Memory inheritance": (
            "内存继承",
            "写时复制共享，但读操作也会触发页面复制",
            "服务进程导入的内容共享；Dataset 每个 worker 一份拷贝",
            "每个 worker 一份完整拷贝",
        ),
        "Start-up cost per worker": (
            "每个 worker 的启动开销",
            "毫秒级",
            "fork 一次服务进程，加上 pickle 后的 Dataset",
            "一个解释器、torch，加上 pickle 后的 Dataset",
        ),
        "Random generators on the Dataset": (
            "Dataset 上的随机数生成器",
            "以相同状态被复制",
            "以相同状态被复制",
            "以相同状态被复制",
        ),
    }
}

# The bench page's generated sentences and tables.
TEXT.update(
    {
        "bench.missing": {
            "en": '!!! warning "No bench figures recorded yet"\n'
            "    Run `nox -s bench` to measure this machine.\n",
            "zh": '!!! warning "还没有记录基准测试数据"\n    运行 `nox -s bench` 来测量这台机器。\n',
        },
        "bench.machine": {
            "en": "Measured on {cpu}, {cpus} CPUs, {memory} GB of RAM; {system}, Python {python}, "
            "torch {torch}, Pillow {pillow}; recorded {recorded}, the whole bench took {seconds} s.",
            "zh": "测量环境：{cpu}，{cpus} 个 CPU，{memory} GB 内存；{system}，Python {python}，"
            "torch {torch}，Pillow {pillow}；记录于 {recorded}，整个基准测试用时 {seconds} 秒。",
        },
        "bench.startup-head": {"en": "| Dataset size | ", "zh": "| Dataset 大小 | "},
        "bench.autotune-head": {
            "en": "| workload | start method | autotune | of the best | by the sweep alone "
            "| of the sweep's time | heuristic | of the best |",
            "zh": "| 负载 | 启动方法 | autotune | 占最优的比例 | 仅按扫描结果 | 占扫描耗时的比例 "
            "| 经验法则 | 占最优的比例 |",
        },
        "bench.workers": {"en": "{n} workers", "zh": "{n} 个 worker"},
        "bench.every-case": {"en": "every case", "zh": "全部案例"},
        "bench.cases": {"en": "cases {numbers}", "zh": "案例 {numbers}"},
        "bench.overhead": {
            "en": "{runs} runs ({cases}, both variants, start methods {methods}), {parallel} at a time: "
            "through the harness **{harness} s**, from a plain loop **{plain} s**: the harness added "
            "**{added}**",
            "zh": "{runs} 次运行（{cases}，broken 和 fixed 两个版本，启动方法 {methods}），每次并行 "
            "{parallel} 个：经过 harness **{harness} 秒**，用普通循环直接跑 **{plain} 秒**：harness 多花了 "
            "**{added}**",
        },
        "bench.passes": {
            "en": " (means of {n} passes each, in alternating order: harness {harness} s; "
            "plain loop {plain} s)",
            "zh": "（各 {n} 轮交替运行的平均值：harness {harness} 秒；普通循环 {plain} 秒）",
        },
        "bench.stop": {"en": ".", "zh": "。"},
        "bench.own-cpu": {
            "en": " The harness's own process used {cpu} s of CPU per pass, {share} of the CPUs' time.",
            "zh": "harness 自身进程每轮占用 {cpu} 秒 CPU，占全部 CPU 时间的 {share}。",
        },
        "bench.hang-head": {
            "en": "| run that hung | timeout | reported after |",
            "zh": "| 卡住的运行 | 超时时间 | 报告于 |",
        },
    }
)
