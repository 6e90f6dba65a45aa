"""What a Kafka Streams reader does with metadata written at another version: the one model behind
``decode_subscription(latest=)``, ``decode_assignment(latest=)``, ``rebalance-codec compat`` and ``negotiate`` (a
leader reading its members' subscriptions, a member reading its assignment) and ``conformance --cross-version``
(what Kafka implies for each cell).

A reader is named by its newest version ``R`` (the release's ``CURRENT_VERSION`` before 2.0,
``LATEST_SUPPORTED_VERSION`` since). Bytes written at ``W``:

* ``W <= R``: decoded in full, by every release (each reader keeps the layouts of every older version);
* ``W > R``, SubscriptionInfo: a *version probe* from 2.0 on (``R >= 3``): only the version words are read, the
  rest ignored; before 2.0 (``R`` 1 or 2) ``TaskAssignmentException("unable to decode subscription data:
  version=W")``: those readers cannot probe, which is why an upgrade from before 2.0 takes two bounces;
* ``W > R``, AssignmentInfo: ``TaskAssignmentException`` in every release.

Each rule's source is in :data:`SOURCES`: Kafka's code at the release's tag. The readers of 0.10.0 to 2.4
(SubscriptionInfo) and 0.10.0 to 2.5 (AssignmentInfo) were also run on the cross-version samples:
``vectors/releases/streams-readers.jsonl`` holds what each did, and ``tests/streams/test_release_readers.py``
holds this model, the codec's readers, ``compat`` and the cross-version matrix to it.
"""

from __future__ import annotations

from .constants import EARLIEST_PROBEABLE_VERSION

__all__ = ["SOURCES", "can_probe", "reads"]

#: Where Kafka's code shows each rule (apache/kafka tags; paths under
#: ``streams/src/main/java/org/apache/kafka/streams/processor/internals/assignment/``).
SOURCES: dict[str, str] = {
    "subscription-before-2.0": (
        "0.10.0.0 SubscriptionInfo.decode: `if (version == CURRENT_VERSION) ... else throw new "
        'TaskAssignmentException("unable to decode subscription data: version=" + version)`; 0.10.1.0 to 1.1.1: '
        "`if (version == CURRENT_VERSION || version == 1) ... else throw` (the same exception)"
    ),
    "subscription-probe": (
        "2.0.0 to 2.4.x SubscriptionInfo.decode: `switch (usedVersion) { case 1 .. case LATEST: decode; default: "
        'latestSupportedVersion = data.getInt(); ... log.info("Unable to decode subscription data: used version: '
        '...")`; 2.5.0 to trunk: `if (version > LATEST_SUPPORTED_VERSION) { ... setVersion(version); '
        "setLatestSupportedVersion(latestSupportedVersion) }`"
    ),
    "assignment-newer": (
        '0.10.0.0 AssignmentInfo.decode: `if (version == 1) ... else throw new TaskAssignmentException("Unknown '
        'assignment data version: " + version)`; 0.10.1.0 to 1.1.1: `if (version < 0 || version > CURRENT_VERSION) '
        'throw`; 2.0.0 to trunk: `switch (usedVersion) { ... default: throw new TaskAssignmentException("Unable '
        'to decode assignment data: used version: ...")`'
    ),
}


def can_probe(reader: int) -> bool:
    """Whether a SubscriptionInfo reader of newest version ``reader`` reads a newer version as a probe (2.0 on)."""
    return reader >= EARLIEST_PROBEABLE_VERSION


def reads(message: str, written: int, reader: int) -> str:
    """``"ok"`` (decoded in full), ``"probe"`` (only the version words) or ``"error"``: what Kafka's reader of
    newest version ``reader`` does with ``message`` bytes written at version ``written`` (``written`` >= 1)."""
    from ..wire.registry import messages_of_type  # (at the call: the schemas are not read at import)

    known = messages_of_type("streams")
    if message not in known:
        raise ValueError(f"no Streams reader for {message!r}: one of {', '.join(known)}")
    if written <= reader:
        return "ok"
    if message == "SubscriptionInfo" and can_probe(reader):
        return "probe"
    return "error"
