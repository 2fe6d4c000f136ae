"""Where log records go: in the main process, how logging is set up as it starts a DataLoader's
workers; in each worker, every record it logs and whether a handler there received it.

    logging_setup <logger> <level> <handler level> <propagate> <disabled>
            the main process, as an epoch starts: each logger with a level or handlers of its own,
            not propagating, or disabled (dictConfig disables the loggers that existed before it),
            and the root; <handler level> is the lowest level a handler of it takes (- none)
    log <worker> <logger> <level> <delivered>
            a worker logged a record at <level> on <logger>; <delivered> 1 when a handler of
            the worker's took it, 0 when it was dropped for its level or reached no handler
            (logging's last resort is no handler of the script's)

The harness compares them (harness/measurements.py `lost_logs`): a record the worker dropped
that the main process's setup would have handled is lost. A worker records its first
RECORDS_KEPT records only: one that logs each sample costs nothing more.
"""

import functools

RECORDS_KEPT = 50
_METHODS = {"debug": 10, "info": 20, "warning": 30, "error": 40, "critical": 50}


def _name(logger):
    return logger.name.replace(" ", "_") or "root"


def record_setup(record):
    """The main process's logging setup, as events (the loggers that shape it)."""
    import logging

    loggers = [logging.getLogger()]
    loggers += [
        logger
        for logger in list(logging.Logger.manager.loggerDict.values())
        if isinstance(logger, logging.Logger)
        and (logger.level or logger.handlers or not logger.propagate or logger.disabled)
    ]
    for logger in loggers:
        levels = [handler.level for handler in logger.handlers]
        lowest = min(levels) if levels else "-"
        record(
            "logging_setup", _name(logger), logger.level, lowest, int(logger.propagate), int(logger.disabled)
        )


def _delivered(logger, level):
    """Whether a record at `level` on `logger` reaches a handler (not logging's last resort)."""
    if not logger.isEnabledFor(level):
        return False
    current = logger
    while current is not None:
        if any(level >= handler.level for handler in current.handlers):
            return True
        if not current.propagate:
            return False
        current = current.parent
    return False


def watch_worker(record, worker_id):
    """Patches logging.Logger's level methods in this worker to record what each record met."""
    import logging

    kept = [0]

    def wrap(method, level_of):
        @functools.wraps(method)
        def logged(self, *args, **kwargs):
            if kept[0] < RECORDS_KEPT:
                kept[0] += 1
                try:
                    level = level_of(args)
                    record("log", worker_id, _name(self), level, int(_delivered(self, level)))
                except Exception:  # a call logging itself would reject: not ours to judge
                    pass
            # One frame more to skip, this one: the record names the script's line, not ours.
            kwargs["stacklevel"] = kwargs.get("stacklevel", 1) + 1
            return method(self, *args, **kwargs)

        return logged

    for name, level in _METHODS.items():
        setattr(logging.Logger, name, wrap(getattr(logging.Logger, name), lambda args, level=level: level))
    logging.Logger.log = wrap(logging.Logger.log, lambda args: int(args[0]))
