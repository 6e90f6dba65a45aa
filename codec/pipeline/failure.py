"""How the job fails: one line for the user, whatever failed (no pyspark here).

* :class:`PipelineError`: the job refused to run or to commit (bad input, an output it may not write, a failed
  counts check);
* :class:`SparkStartError`: the session's JVM did not start; its reason comes from the log the JVM wrote
  (:func:`jvm_start_error`);
* anything else Spark, Py4J or Python raised: :func:`spark_error_line` gives its first cause in one line; and
  when the JVM itself died (out of memory: the gateway is gone, and every call after says only that the
  session "does not exist in the JVM"), :func:`jvm_death` reads why from the log, where the JVM wrote it
  first.
"""

from __future__ import annotations

import re

__all__ = [
    "PipelineError",
    "SparkStartError",
    "JobFailed",
    "spark_error_line",
    "jvm_start_error",
    "jvm_death",
    "jvm_out_of_memory",
    "gateway_gone",
]


class PipelineError(RuntimeError):
    """The job refused to run or to commit its output: bad input (a missing path, a format that cannot be
    told, a file its reader cannot read), an existing output, a failed counts check. One line."""


class SparkStartError(RuntimeError):
    """The session's JVM did not start (no Java, a heap size the JVM refuses, a master spark-submit refuses
    ...): one line, the JVM's own reason, read from the log it wrote to."""


_LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d\S* +(TRACE|DEBUG|INFO|WARN)\b")
_MAIN_EXCEPTION = re.compile(r'^Exception in thread "[^"]*" (?:[\w$]+\.)*([\w$]+(?:Exception|Error)): ?(.*)$')


def jvm_start_error(log: str, start: int = 0) -> str | None:
    """Why a session's JVM exited before PySpark could talk to it, from what it wrote to ``log`` after
    byte ``start``: the message of ``Exception in thread "main" ...`` (spark-submit refusing a master ...),
    else its first two lines of output that are neither log lines below ERROR, notices nor stack frames
    (``Invalid maximum heap size: -Xmxxyz``, ``.../bin/java: No such file or directory``). None if it
    wrote nothing of the kind."""
    try:
        with open(log, "rb") as f:
            f.seek(start)
            text = f.read(256 * 1024).decode("utf-8", "replace")
    except OSError:
        return None
    lines: list[str] = []
    for ln in text.splitlines():
        ln = ln.strip()
        m = _MAIN_EXCEPTION.match(ln)
        if m:
            return f"{m.group(1)}: {m.group(2)}" if m.group(2) else m.group(1)
        if (
            ln
            and not _LOG_LINE.match(ln)
            and not ln.startswith(("at ", "... ", "WARNING:", "Picked up ", "Using Spark's default log4j"))
            and len(lines) < 2
        ):
            lines.append(ln)
    line = "; ".join(lines)
    return (line if len(line) <= 400 else line[:397] + "...") or None


def _error_chain(e: BaseException) -> list[tuple[str, str]]:
    """``[(class name, message)]`` from the outermost error to its root cause: a Java exception's causes
    (py4j's Py4JJavaError), a PySpark captured exception's, or Python's ``__cause__``."""
    chain: list[tuple[str, str]] = []
    java = getattr(e, "java_exception", None)
    if java is not None:
        try:
            seen = 0
            while java is not None and seen < 20:
                chain.append((str(java.getClass().getSimpleName()), str(java.getMessage() or "")))
                cause = java.getCause()
                java = None if cause is None or cause.equals(java) else cause
                seen += 1
        except Exception:  # noqa: BLE001 - the gateway may be gone; what was read so far will do
            pass
    cur: BaseException | None = e
    seen = 0
    while cur is not None and not chain and seen < 20:
        desc = getattr(cur, "_desc", None)  # pyspark's captured exceptions (AnalysisException ...)
        text = desc if isinstance(desc, str) and desc else _text(cur)
        chain.append(
            (type(cur).__name__, "(its text is in the JVM, which no longer answers)" if text is None else text)
        )
        nxt = getattr(cur, "_cause", None) or cur.__cause__
        cur = nxt if isinstance(nxt, BaseException) else None
        seen += 1
    return chain


_ERROR_CLASS = re.compile(r"^\[[A-Z][A-Z0-9_.]*\]")
_SQLSTATE = re.compile(r"\s*SQLSTATE: \w+\s*$")


def spark_error_line(e: BaseException) -> str:
    """One line for the user from a Spark, Py4J or Python error, without stack traces: a Python worker's
    exception (the last line of its traceback); else Spark's first error-class message (``[CLASS] ...``,
    which names the file) with the root cause; else the root cause."""
    chain = _error_chain(e) or [(type(e).__name__, _text(e) or "")]

    def first_line(text: str) -> str:
        for ln in text.splitlines():
            ln = _SQLSTATE.sub("", ln).strip()
            if ln:
                return ln
        return ""

    line = ""
    for _, msg in chain:
        if "Traceback (most recent call last)" in msg:
            lines = [_SQLSTATE.sub("", ln).strip() for ln in msg.splitlines()]
            lines = [ln for ln in lines if ln and not ln.startswith(("File ", "^", "~", "at ", "Traceback"))]
            exc = [ln for ln in lines if re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)\b", ln)]
            line = exc[-1] if exc else (lines[-1] if lines else "")
            break
    if not line:
        root_cls, root_msg = chain[-1]
        root = f"{root_cls}: {first_line(root_msg)}" if first_line(root_msg) else root_cls
        for _, msg in chain:
            head = first_line(msg)
            if _ERROR_CLASS.match(head):
                line = head if first_line(root_msg) in head or len(chain) == 1 else f"{head} ({root})"
                break
        line = line or root
    return line if len(line) <= 500 else line[:497] + "..."


class JobFailed(RuntimeError):
    """The job failed while it ran, for a reason read from Spark's log (the JVM died: out of memory ...). One
    line."""


_GONE = (
    "does not exist in the JVM",
    "SparkContext was shut down",
    "Answer from Java side is empty",
    "Error while sending or receiving",
    "Connection refused",
    "Connection reset by peer",
    "SparkContext has been shutdown",
    "Cannot call methods on a stopped SparkContext",
    # what Py4J raises when the JVM's answer to a call is cut off as the JVM dies (a CI run's out of memory)
    "An error occurred while calling None.None",
)


def _text(e: BaseException) -> str | None:
    """``str(e)``, or None where that cannot be had: a Py4J error's text is the Java exception's, which it asks the
    JVM for -- and a JVM that has died answers nothing (the call raises ConnectionRefusedError)."""
    try:
        return str(e)
    except Exception:  # noqa: BLE001 - any failure to reach the JVM
        return None


def gateway_gone(e: BaseException) -> bool:
    """Whether ``e`` (or an error it was raised from) says the JVM is gone or its context shut down under the
    job: what every call says once the JVM has died, whatever killed it."""
    seen = 0
    cur: BaseException | None = e
    while cur is not None and seen < 10:
        if type(cur).__name__ in ("Py4JNetworkError", "ConnectionRefusedError", "ConnectionResetError"):
            return True
        text = _text(cur)
        if text is None or any(s in text for s in _GONE):  # (None: its text is in a JVM that no longer answers)
            return True
        cur = cur.__cause__ or cur.__context__
        seen += 1
    return False


_OOM = re.compile(r"java\.lang\.OutOfMemoryError(?::\s*(.*))?")
_ERROR_LINE = re.compile(r"^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d\S* +ERROR\b")
_JAVA_EXCEPTION = re.compile(r"^(?:Caused by: )?((?:[a-z_$][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error))(?::\s*(.*))?$")


def _read_log(log: str, start: int) -> list[str] | None:
    try:
        with open(log, "rb") as f:
            f.seek(start)
            return f.read(8 << 20).decode("utf-8", "replace").splitlines()
    except OSError:
        return None


def jvm_out_of_memory(log: str, start: int = 0) -> bool:
    """Whether the JVM wrote a ``java.lang.OutOfMemoryError`` to ``log`` after byte ``start``: then whatever the
    job raised (a cut-off Py4J answer, a context that still says it runs while the JVM shuts down) follows from
    it, and the out of memory is the line to show."""
    lines = _read_log(log, start)
    return lines is not None and any(_OOM.search(ln) for ln in lines)


def jvm_death(log: str, start: int = 0) -> str | None:
    """Why the JVM died, from what it wrote to ``log`` after byte ``start``: the first
    ``java.lang.OutOfMemoryError`` (with what to change), else the first exception an ERROR line of Spark's log
    reports. None when the log says nothing of the kind (or cannot be read)."""
    lines = _read_log(log, start)
    if lines is None:
        return None
    for ln in lines:
        m = _OOM.search(ln)
        if m:
            what = m.group(1).strip() if m.group(1) else ""
            return (
                f"the JVM ran out of memory (java.lang.OutOfMemoryError{': ' + what if what else ''}); raise "
                f"--driver-memory (a cluster: the executors' memory), or lower --max-line-length"
            )
    for i, ln in enumerate(lines):
        if _ERROR_LINE.match(ln):
            for nxt in lines[i + 1 : i + 4]:
                m = _JAVA_EXCEPTION.match(nxt.strip())
                if m:
                    return f"{m.group(1).rpartition('.')[2]}: {m.group(2)}" if m.group(2) else m.group(1)
    return None
