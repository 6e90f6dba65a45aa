"""The fleet-scale decode job on Apache Spark (issue #9). Only this package imports pyspark, and only
in :mod:`codec.pipeline.job`; everything else here is plain Python so that Spark's executors (and
tests without Spark) can use it.

Input records
=============

The job reads JSON Lines (``.jsonl``, ``.json``, ``.ndjson``; gzip and bzip2 too) and Parquet: files, directories
and globs, local or any Hadoop filesystem URI. A file's format is told by its extension, else by its first
bytes (``PAR1``, or a ``{``); a directory by the files inside it, recursively (hidden ones, such as
``_SUCCESS`` and ``.crc`` files, skipped; empty files hold no records), each format with its own reader,
the results unioned (:mod:`codec.pipeline.inputs`). ``--input-format`` reads every input with one reader; an input
whose format cannot be told is refused with one line saying so. Before Spark starts, the command checks the
options' values (``--master`` must be a master URL Spark accepts, ``--driver-memory`` a JVM size with its
unit, such as ``2g``: else one line, exit status 2) and, when inputs and output are local, the inputs (a
missing path; a Parquet file that does not begin and end with ``PAR1``; a JSON lines file named ``.gz`` that
is not gzip data) and the output (one that exists, without ``--overwrite``): one line, exit status 1, no
JVM started. A JVM that does not start is one line with its reason (exit status 2); Spark's and the JVM's
output go to the log file (``--log``). In a JSON lines file each line is parsed on its own, into the columns
below, with no schema inferred (:mod:`codec.pipeline.jsonlines`): a line that is not one JSON object is a
record, quarantined as ``not-json`` with its text (a file of nothing else too); a line holding a key twice, or
two keys that differ only in case, is quarantined as ``duplicate-key`` with its text; a line over
``--max-line-length`` bytes is never held, but quarantined as ``line-too-long`` with its size; a blank line is not
a record. Parquet files are read together when their schemas merge, else in groups of one schema each. A value
that does not fit its column -- bytes that are not a string, a ``version`` no 32-bit integer holds, a struct or a
list where a value belongs, binary that is not UTF-8 where text does, columns whose names differ only in case --
quarantines its record (``FieldType``, ``FieldRange``, ``DuplicateKey``), naming the column and what it holds.
Each record's ``source`` is the file that holds it and its default ``record_id`` its line or row there
(:mod:`codec.pipeline.reading`).
Each record is one captured piece of
rebalance metadata with its context. Columns (all optional except the bytes; unknown columns are
ignored):

==================  ===========================================================================
column              meaning
==================  ===========================================================================
``hex``             the bytes as a hex string (whitespace and a ``0x`` prefix are allowed), or
``data``            the bytes as a binary column (Parquet) -- ``data`` wins when both are set
``kind``            what the bytes are (table below); records without ``kind`` are recognized by
                    their shape: ``api_key`` present -> ``frame``; ``key`` and ``value`` present
                    -> ``group-metadata`` (a ``__consumer_offsets`` record)
``version``         the message version, for kinds whose bytes do not carry it (message bodies);
                    ``api_version`` is read as a synonym
``group``           consumer group id (``group_id`` is a synonym)
``member``          member id of the consumer the bytes belong to (``member_id``)
``generation``      generation id (``generation_id``)
``timestamp``       capture or record time: epoch milliseconds (integer), or a Spark timestamp;
                    ``ts`` in epoch *seconds* (float, as ``frames.jsonl`` writes it) also works
``record_id``       a stable id for the record (``id``); default ``<source>:<line>`` for JSON lines (the
                    line's number in its file, from 1, blank lines counted) and ``<source>:<row>``
                    for Parquet (the row's index in its file, from 0), where ``source`` is the file
                    as Hadoop names it (``file:/data/a b.jsonl``: no percent escapes)
``leader``          the group leader's member id, when the capture knows it
``protocol``        the assignor (protocol) name, e.g. ``stream``, when the capture knows it
==================  ===========================================================================

Accepted ``kind`` values (Kafka's message names and the vectors' short names are accepted too):

* ``subscription-info`` / ``assignment-info``: Kafka Streams SubscriptionInfo / AssignmentInfo
  bytes, i.e. the ConsumerProtocol ``UserData`` (v1-11; a newer subscription is a version probe);
* ``consumer-subscription`` / ``consumer-assignment``: ConsumerProtocol bytes with their int16
  version prefix; the ``UserData`` inside is decoded as Streams metadata;
* ``join-group-request``, ``join-group-response``, ``sync-group-request``, ``sync-group-response``:
  a message *body* (no size, no header) at API version ``version``; every ConsumerProtocol and
  Streams layer inside it is decoded (a leader's JoinGroup response yields every member's
  subscription, a leader's SyncGroup request every member's assignment);
* ``consumer-group-heartbeat-request``/``-response``, ``consumer-group-describe-request``/``-response``,
  ``streams-group-heartbeat-request``/``-response``, ``streams-group-describe-request``/``-response``,
  ``share-group-heartbeat-request``/``-response``, ``share-group-describe-request``/``-response``: a
  body of Kafka 4's group APIs (KIP-848 consumer groups, KIP-1071 streams groups, KIP-932 share groups) at
  ``version``
  (:mod:`codec.pipeline.kafka4` says what each gives);
* ``frame``: a whole Kafka frame without its int32 size, as ``rebalance-codec capture --json`` and
  ``frames.jsonl`` write it, with ``api_key``, ``api_version``, ``direction`` (``request`` or
  ``response``), ``body_offset`` (optional: the header is parsed when absent) and, to pair responses
  with requests, ``conn`` (or ``connection``) and ``correlation_id``. Only JoinGroup (11), SyncGroup (14),
  LeaveGroup (13, requests), DescribeGroups (15, responses), OffsetFetch (9), Metadata (3, responses: the topics'
  partition counts and replica racks, for :mod:`codec.pipeline.consumerchecks`), ConsumerGroupHeartbeat (68),
  ConsumerGroupDescribe (69), StreamsGroupHeartbeat (88), StreamsGroupDescribe (89), ShareGroupHeartbeat (76)
  and ShareGroupDescribe (77) frames are input to the job (:mod:`codec.pipeline.admin` says what DescribeGroups
  and OffsetFetch give); other frames are counted as *not selected*, and so are
  lines whose ``type`` is not ``frame`` (``capture --json`` also writes generation and summary lines);
* ``group-metadata``: a ``__consumer_offsets`` record: ``key`` and ``value`` (binary, or hex
  strings), e.g. what Spark's Kafka source or ``kafka-dump-log --print-data-log`` gives. Only
  group records with a value are input: classic group metadata (key version 2) and Kafka 4's consumer, share
  and streams group records (record types 3-8, 16, 9-15, 17 and 19-23); offset commits and tombstones are counted
  as not selected;
* ``describe-groups-response``: a DescribeGroups response *body* at ``version`` (as a ``frame`` gives it);
* ``share-state-record``: a ``__share_group_state`` record, ``key`` and ``value`` as for ``group-metadata``
  (ShareSnapshot and ShareUpdate, read with the share coordinator's record types): a ``share_state`` row.

Every record read is counted once: ``records read = not selected + decoded + quarantined``, which the
job checks before it commits its output (``report.json``: ``counts``, and ``not_selected_by_reason``,
e.g. ``frame Heartbeat``, ``line type generation``, ``__consumer_offsets tombstone``). A selected record
is either decoded -- its units feed the tables: a subscription gives a ``members`` row and its
``task_lags`` rows, an assignment its ``assignments`` rows, a Kafka Connect worker's metadata or
assignment (a group of protocol type ``connect``) a ``connect`` row, and the group facts feed
``rebalances`` and ``findings`` -- or quarantined whole, as one ``quarantine`` row, never both and never
neither: a record whose bytes fail anywhere, at any layer, is quarantined whole (a Connect layer too).

Strings: Parquet strings are valid UTF-8, Java strings may hold lone surrogates (AssignmentInfo's
named topologies). Such a value is written as :func:`codec.text.utf8_safe` gives it and the row's
``escaped`` column names the columns written so; :func:`codec.text.unescape_utf8_safe` gives the exact
value back (see :mod:`codec.pipeline.tables`).

Outputs (Parquet, under ``--out``): ``members``, ``task_lags``, ``assignments``, ``rebalances``,
``connect``, ``offsets``, ``share_state``, ``findings``, ``quarantine`` (each written with its schema also when it has no rows), and ``report.json``
/ ``report.html``; see :mod:`codec.pipeline.job`. ``--out`` is never an input nor a folder that holds or lies
inside one, is written through a symbolic link, and is committed by one rename that replaces nothing but an empty
folder unless ``--overwrite`` (:mod:`codec.pipeline.output`).
"""

from .records import KINDS, canonical_kind

__all__ = ["KINDS", "canonical_kind"]
