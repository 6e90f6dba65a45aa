"""The output tables and the checks across records, as Spark DataFrame plans over the decoded units.

Tables (one Parquet directory each):

* ``members``: one row per decoded subscription (deduplicated per group, generation and member when
  the member id is known; a JoinGroup request's subscription has no generation unless the record's
  context gives one, since the response decides it): group, generation, member, process id, metadata version, latest supported
  version, the first Kafka release that writes each of those versions, endpoint, client tags, error
  code, unique field, version-probe flag, ConsumerProtocol version and rack, timestamp. Kafka 4's groups
  (KIP-848 consumer groups, KIP-1071 streams groups, KIP-932 share groups; :mod:`codec.pipeline.kafka4`) fill
  the same rows from their heartbeats, Describe responses and ``__consumer_offsets`` records, with the member
  epoch as the generation and no metadata version (their ``kind`` says where a row came from); a consumer or
  share member's ``subscribed_topics`` are its topic names (null: not carried, e.g. unchanged). A classic
  member's ``subscribed_topics`` are its ConsumerProtocol subscription's topics (Streams members' too; null for
  a bare SubscriptionInfo record, which has no such layer), its ``owned_partitions`` (``{topic, partitions}`` per
  topic, ``topic_id`` null) and ``subscription_generation`` the subscription's ownedPartitions (v1+) and
  generationId (v2+; -1: none), null where the version lacks them; a KIP-848 member's are its heartbeat request's
  ``topicPartitions`` (``topic_id`` its id, ``topic`` the name any input of the group gives it -- its records,
  Describe responses, the Metadata responses of its input files -- or null) and that request's member epoch (a
  null ``topicPartitions``, "unchanged", is a null ``owned_partitions``; an empty one an empty list);
  ``sticky_partitions`` and ``sticky_generation`` what the user data of a ``sticky`` or ``cooperative-sticky``
  member says (its previous partitions, StickyAssignorUserData only, and generation: :mod:`codec.group.sticky`;
  null where the protocol is another, the user data does not read as Kafka reads it, or the layout has none); and
  its ``client_id`` the client id in the header of its JoinGroup request (a frame's; or the ``__consumer_offsets``
  member's): a row without one -- a leader's JoinGroup response lists the members without their client ids --
  takes the one a row of the same group and member id has (a member id is the coordinator's, for one client
  instance).
* ``task_lags``: one row per member x task of its ``task_offset_sums``: offset sum and lag class.
  The end-offset sums are not on the wire, so the lag is *estimated* against the highest offset sum
  any member of the same group and generation reported for the task (a lower bound of the end sum):
  ``running`` (-2, a running active task), ``unknown`` (-3: v1-6 standbys, or a failed fetch),
  ``caught-up`` (estimated lag <= ``acceptable.recovery.lag``), ``lagging``, or ``invalid`` (another
  negative sum, which Kafka never sends). A KIP-1071 member reports its end offsets (``taskEndOffsets``): its
  rows take them instead of the estimate.
* ``assignments``: one row per member x task: role ``active``, ``standby`` or ``warmup``. A KIP-1071
  assignment names its warm-up tasks; a classic one's travel as standbys: a standby is a warmup when ``num.standby.replicas`` is known and the task, active
  on some member in this generation, has more standby holders than that: the holders beyond it,
  least caught up first, are the warmups. (A generation that withholds actives for cooperative
  revocation hands out temporary standbys the wire cannot tell from warmups; tasks without an active
  owner are therefore never given warmups.) A share group's member holds partitions (role ``share``): one row
  per member x partition, ``task`` ``topic-partition`` (the topic named from the group's records or Describe
  responses, else its id in Kafka's form), ``topic`` (its name, null when no input names it) and ``partition``
  set, the task columns null. So does a plain (classic, non-Streams) consumer (role ``consumer``): one row per
  member x partition of its ConsumerProtocol assignment (a SyncGroup request's for each member, a response's,
  a ``__consumer_offsets`` member's; deduplicated per group, generation and member like the tasks), ``task``
  ``topic-partition``, ``topic`` and ``partition``. A KIP-848 consumer member's partitions (heartbeat responses,
  Describe responses, ``ConsumerGroupCurrentMemberAssignment`` and ``ConsumerGroupTargetAssignmentMember``
  records; by topic id) are role ``consumer`` rows too, the topic named as a share group's is (its
  ``ConsumerGroupPartitionMetadata`` record, its Describe responses, the Metadata responses of its input files), and
  the partitions a current assignment record lists as pending revocation are rows of role ``pending-revocation``
  (still the member's until it revokes them). The Streams checks below read the task roles only.
* ``rebalances``: one row per group x generation: ``group_protocol`` (``classic``, or ``consumer`` / ``streams`` /
  ``share`` for Kafka 4's groups, whose generations are their epochs), leader, protocol, ``protocol_type`` (a
  classic JoinGroup response below v7 and SyncGroup below v5 name none: the JoinGroup request's, linked by
  connection and correlation id, fills its response), member and client counts (``member_count``: the members
  whose subscription or assignment the input holds; ``reported_member_count``: the group's size as the leader's
  JoinGroup response or SyncGroup request, or a ``__consumer_offsets`` record, gives it; ``members_complete``: the
  input holds the whole group; ``client_count``: a Streams group's distinct process ids, any other group's distinct
  ``{client id, host}`` of its members, each member's from any unit of the same group and member id, a member
  without a known client id not counted), the versions in use, the probing deadlines (members whose ``next_rebalance_ms``
  is not Long.MAX_VALUE), task counts (a Streams group's active tasks, standby and warm-up replicas) and
  ``assigned_partitions`` (a consumer or share group's, classic or Kafka 4: the partitions its members hold in the
  generation, each once, pending revocation included), and why the generation formed: ``cause`` (the main one: ``kind``,
  ``members``, ``detail``, ``confidence``, ``evidence`` as ``{ts, what}``), ``causes`` (every cause found, the main
  one first; the vocabulary is :mod:`codec.causes`', the capture story's, decided by the same engine in
  :mod:`codec.pipeline.causes`) and ``moved`` (the partitions or tasks whose owner changed from the generation
  before, when the input holds both generations' assignments whole; else null). A Kafka 4 group's row at
  generation 0 holds its members' joins (member epoch 0): its cause is ``member-joined``.
* ``connect``: Kafka Connect workers (groups of protocol type ``connect``): one row per worker layer,
  deduplicated per group, generation, member and ``layer`` like ``members``: ``metadata`` (a JoinGroup's
  ConnectMetadata: ``url``, ``config_offset``, and from v1 the worker's previous assignment, its
  ``allocation``, as ``connectors`` / ``tasks`` / ``revoked_connectors`` / ``revoked_tasks``, null when it
  has none) or ``assignment`` (a SyncGroup's ConnectAssignment: ``error``, ``leader``, ``leader_url``,
  ``config_offset``, the assigned ``connectors`` and ``tasks`` (``{connector, task}``), and from v1 the
  revoked connectors and tasks and the scheduled ``delay`` in ms; v0 has none revoked and delay 0);
  group, generation, member, ``protocol`` (``default``, ``compatible``, ``sessioned``), ``version`` (the
  bytes' header), connector and task counts, timestamp, record id, source.
* ``offsets``: one row per group x partition of each OffsetFetch response (:mod:`codec.pipeline.admin`): group
  (before v8 its request's), ``topic`` (null in v10, which names ``topic_id``), ``partition``, ``committed_offset``
  (-1: none), ``leader_epoch`` (v5+, else null), ``metadata``, ``error_code``, ``group_error_code``, kind
  (``offset-fetch-response``), timestamp, record id, source.
* ``share_state``: one row per ``__share_group_state`` record (ShareSnapshot or ShareUpdate): group, ``topic_id``,
  ``partition``, ``record``, ``snapshot_epoch``, ``state_epoch`` (null in an update), ``leader_epoch``,
  ``start_offset``, ``delivery_complete_count`` (null: not recorded), ``create_time_ms`` and ``write_time_ms`` (as
  written), ``batches`` (``first_offset``, ``last_offset``, ``delivery_state``, ``delivery_count``) and
  ``batch_count``, timestamp, record id, source. (A DescribeGroups response's members are ``members``,
  ``assignments`` and ``connect`` rows of kind ``describe-groups-response``, generation null.)
* ``findings``: violations of the checks below; ``quarantine``: every record that did not decode.

Every table is written with its schema also when it has no rows. Parquet strings must be valid UTF-8,
and a Java string may hold lone surrogates (AssignmentInfo's named topologies): such a value is written
as :func:`codec.text.utf8_safe` gives it (each lone surrogate as ``\\uXXXX``, backslashes doubled), and the
row's ``escaped`` column names the columns written so (``["topology", "task"]``), so that
:func:`codec.text.unescape_utf8_safe` recovers the exact value; ``escaped`` is null on every other row.
``members``, ``task_lags``, ``assignments``, ``connect``, ``findings`` and ``quarantine`` have it
(``connect`` names ``connectors`` / ``tasks`` / ``revoked_connectors`` / ``revoked_tasks`` when an entry was
escaped; Connect's strings are UTF-8 on the wire, so only a hand-built model can need it; ``rebalances``
holds no string that can carry a lone surrogate: group, member and protocol names are UTF-8 on the wire).

Checks, per group and generation (wire-facts §12 and §5; :mod:`codec.pipeline.findings`): ``multiple-active-owners``,
``no-active-owner`` (a task assigned as standby/warmup but active nowhere, decided where the input holds the whole
group: an error, or a warning where a member was told to rejoin at once for a cooperative revocation, and none
when the next generation makes the task active; where the input holds some members only, one warning per
generation that says what is missing; see :func:`codec.pipeline.findings._no_active_owner`), ``active-and-standby``
(one member holds a task both ways), ``standby-on-active-client`` (another consumer of the same
client holds it as standby), ``too-many-warmups`` (more than ``max.warmup.replicas``, when known),
``unbalanced-active`` (KIP-441: max - min of active tasks per client capacity > 1, checked only
when no follow-up rebalance is scheduled, since warmups may legitimately skew a probing
generation, and where the input holds the whole group), ``mixed-assignment-versions`` (a leader sends one version to all), ``unresolved-version-mix``
(the group's latest observed generation still has mixed subscription versions, a version probe, or
an assignment below the commonly supported version: probing should have resolved it), and
``assignment-error`` / ``shutdown-requested`` (non-zero error codes), and ``group-error`` (a Kafka 4 group's
heartbeat or Describe response with an error code, e.g. ``FENCED_MEMBER_EPOCH (110)``, at the epoch it names).
The loop and storm detectors over each group's ``rebalances`` rows (:mod:`codec.causes.detectors`):
``rebalance-storm``, ``probing-loop``, ``poll-interval-drops``, ``static-member-flapping`` (warnings; the detail ends
with the evidence). A share group's: ``unheld-partition`` (a partition of its topics that no member holds at an epoch) and
``unsubscribed-partition`` (a member holds a partition of a topic it does not subscribe to); see
:func:`_share_findings`. A consumer group's (classic or KIP-848): ``partition-owned-twice`` (two members own a
partition in one generation, pending revocation included; :func:`codec.pipeline.findings.consumer_findings`); a classic one's ``eager-move-without-revocation`` (an eager
protocol's member whose subscription still lists a partition another member is given) and ``cooperative-one-step-move``
(cooperative-sticky giving a partition a member still held to another in one generation;
:func:`codec.pipeline.findings.consumer_move_findings`); and, running Kafka's assignor on each generation's leader's
JoinGroup response and SyncGroup request bytes with the partition counts of the Metadata responses in the group's
input (:mod:`codec.pipeline.consumerchecks`), ``not-the-assignors-assignment``, ``partition-unowned`` and
``member-never-rejoined`` (a member of a generation the next one's JoinGroup response does not list, without a
LeaveGroup; a classic Streams group's too); a KIP-848 group's ``partition-unowned`` at each member epoch where the
input shows it settled (:func:`codec.pipeline.consumerchecks.kip848_verdicts`); the generations and epochs those
could not check are listed, with the reason, in the report's ``consumer_assignor_checks``. The Streams checks above
look at the active, standby and warm-up rows only.
"""

from __future__ import annotations

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from ..wire.registry import first_release
from .config import Config
from .findings import (
    consumer_assignor_checks,
    consumer_findings,
    consumer_move_findings,
    detector_findings,
    findings as _findings,
    share_findings as _share_findings,
)
from .rebalances import NO_REBALANCE, rebalances_table

__all__ = ["derive_tables", "RELEASES", "NO_REBALANCE"]

#: first Kafka release that writes each Streams metadata version, v1 first (SubscriptionInfo.json's history)
RELEASES = tuple(release for _, release in sorted(first_release("SubscriptionInfo").items()))
PARTITIONED = ("members", "task_lags", "assignments")


def _release(col):
    arr = F.array(*[F.lit(r) for r in RELEASES])
    return F.when((col >= 1) & (col <= len(RELEASES)), F.element_at(arr, col))


def _dedupe(units: DataFrame, *by: str) -> DataFrame:
    """One unit per (group, generation, member, ``by``...) when the member is known; every unit otherwise."""
    key = F.coalesce(
        F.col("member"), F.concat(F.lit("\u0000"), F.col("record_id"), F.lit("#"), F.col("unit").cast("string"))
    )
    w = Window.partitionBy("group", "generation", *by, key).orderBy(
        F.col("ts_ms").asc_nulls_last(), "record_id", "unit"
    )
    return units.withColumn("_rn", F.row_number().over(w)).filter("_rn = 1").drop("_rn")


def task_name(sub="subtopology", part="partition", topology="topology"):
    """Kafka's printed TaskId: ``1_2``, or ``name__1_2`` with a named topology (TaskId.toString)."""
    base = F.concat(F.col(sub).cast("string"), F.lit("_"), F.col(part).cast("string"))
    return F.when(F.col(topology).isNull(), base).otherwise(F.concat(F.col(topology), F.lit("__"), base))


def _ctx():
    return [F.col("group"), F.col("generation"), F.col("member")]


def _date():
    return F.to_date(F.timestamp_millis(F.col("ts_ms"))).alias("date")


def _escaped(columns: dict[str, str], *extra):
    """The row's ``escaped`` column: the unit's escaped fields (``escaped``, see
    :data:`codec.pipeline.arrow.ESCAPED`) that are columns of the table (``columns``: unit field -> table
    column), plus ``extra`` (conditions with the columns they stand for); null when none."""
    rename = F.create_map(*[F.lit(v) for kv in columns.items() for v in kv])
    names = F.transform(
        F.filter(F.coalesce(F.col("escaped"), F.array().cast("array<string>")), lambda x: x.isin(*columns)),
        lambda x: F.element_at(rename, x),
    )
    for cond, cols in extra:
        names = F.concat(
            names, F.when(cond, F.array(*[F.lit(c) for c in cols])).otherwise(F.array().cast("array<string>"))
        )
    return F.when(F.size(names) > 0, names).alias("escaped")


def _task_escaped(list_name: str, field: str = "topology"):
    """Whether the exploded entry (position ``_pos`` in ``list_name``: a task, or a consumer's topic) had its
    ``field`` escaped."""
    return F.coalesce(
        F.array_contains(
            F.col("escaped"), F.concat(F.lit(f"{list_name}["), F.col("_pos").cast("string"), F.lit(f"].{field}"))
        ),
        F.lit(False),
    )


_CTX_ESCAPED = {"group": "group", "member": "member"}


def _te():
    """Whether the row's ``task`` is escaped: part of a task's identity wherever tasks are grouped or joined
    (an escaped name could equal another task's literal name)."""
    return F.coalesce(F.array_contains(F.col("escaped"), "task"), F.lit(False))


def derive_tables(units: DataFrame, cfg: Config, materialize=None) -> dict[str, DataFrame]:
    """The tables, in dependency order. ``materialize(name, df)`` is called on each table as soon as
    it is planned and returns the DataFrame later tables build on: the job writes the table and reads
    it back, which keeps every plan short (a plan that inlines its inputs' plans takes seconds to
    optimize) and computes nothing twice. Default: use the plans as they are."""
    materialize = materialize or (lambda name, df: df)
    ok = units.filter(F.col("unit_kind") != "quarantine")
    tables: dict[str, DataFrame] = {}

    # --- members and task lags -----------------------------------------------------------------------
    m = _dedupe(ok.filter(F.col("unit_kind") == "member"))
    names = _topic_names(ok)
    m = m.join(
        names.groupBy("group").agg(F.map_from_entries(F.collect_list(F.struct("topic_id", "_name"))).alias("_names")),
        "group",
        "left",
    )
    members = m.select(
        *_ctx(),
        "process_id",
        F.col("sub_version").alias("metadata_version"),
        "latest_supported_version",
        _release(F.col("sub_version")).alias("release"),
        _release(F.col("latest_supported_version")).alias("latest_supported_release"),
        F.col("user_endpoint").alias("endpoint"),
        "client_tags",
        F.col("sub_error_code").alias("error_code"),
        "unique_field",
        "is_version_probe",
        "streams",
        "consumer_protocol_version",
        "rack_id",
        "group_instance_id",
        _client_id(),
        "client_host",
        F.size("tasks").alias("task_count"),
        "subscribed_topics",
        _owned_partitions(),
        "subscription_generation",
        "sticky_partitions",
        "sticky_generation",
        "kind",
        F.timestamp_millis(F.col("ts_ms")).alias("timestamp"),
        "record_id",
        "source",
        _escaped(
            {
                **_CTX_ESCAPED,
                "process_id": "process_id",
                "user_endpoint": "endpoint",
                "client_tags": "client_tags",
                "rack_id": "rack_id",
                "group_instance_id": "group_instance_id",
                "client_id": "client_id",
                "client_host": "client_host",
                "kind": "kind",
            },
            (
                F.exists(
                    F.coalesce(F.col("escaped"), F.array().cast("array<string>")),
                    lambda x: x.startswith("owned_partitions["),
                ),
                ("owned_partitions",),
            ),
            (
                F.exists(
                    F.coalesce(F.col("escaped"), F.array().cast("array<string>")),
                    lambda x: x.startswith("sticky_partitions["),
                ),
                ("sticky_partitions",),
            ),
        ),
        _date(),
    )
    members = tables["members"] = materialize("members", members)

    t = (
        m.select(
            *_ctx(),
            "process_id",
            F.col("sub_version").alias("metadata_version"),
            "ts_ms",
            "record_id",
            "escaped",
            F.posexplode("tasks").alias("_pos", "_t"),
        )
        .select("*", "_t.*")
        .drop("_t")
        .withColumn("task", task_name())
    )
    t = t.withColumn(
        "escaped",
        _escaped({**_CTX_ESCAPED, "process_id": "process_id"}, (_task_escaped("tasks"), ("topology", "task"))),
    ).drop("_pos")
    w = Window.partitionBy("group", "generation", "task", _te())
    est = F.max(F.when(F.col("offset_sum") >= 0, F.col("offset_sum"))).over(w)
    # a KIP-1071 member reports its tasks' end offsets (taskEndOffsets): no estimate needed
    t = t.withColumn("estimated_end_offset_sum", F.coalesce(F.col("end_offset_sum"), est))
    lag = F.when(F.col("offset_sum") >= 0, F.col("estimated_end_offset_sum") - F.col("offset_sum"))
    t = t.withColumn("estimated_lag", lag)
    lag_class = (
        F.when(F.col("offset_sum") == -2, "running")
        .when(F.col("offset_sum") == -3, "unknown")
        .when(F.col("offset_sum") < 0, "invalid")
        .when(F.col("estimated_lag") <= F.lit(cfg.acceptable_recovery_lag), "caught-up")
        .otherwise("lagging")
    )
    task_lags = t.select(
        *_ctx(),
        "process_id",
        "task",
        "subtopology",
        "partition",
        "topology",
        "offset_sum",
        "estimated_end_offset_sum",
        "estimated_lag",
        lag_class.alias("lag_class"),
        "metadata_version",
        F.timestamp_millis(F.col("ts_ms")).alias("timestamp"),
        "record_id",
        "escaped",
        _date(),
    )
    task_lags = tables["task_lags"] = materialize("task_lags", task_lags)

    # --- assignments ---------------------------------------------------------------------------------
    a = _dedupe(ok.filter((F.col("unit_kind") == "assignment") & F.col("streams")))
    base = [
        *_ctx(),
        F.col("asg_version").alias("metadata_version"),
        "commonly_supported_version",
        F.col("asg_error_code").alias("error_code"),
        "next_rebalance_ms",
        "ts_ms",
        "record_id",
        "escaped",
    ]

    def tasks(role: str) -> DataFrame:
        t = (
            a.select(*base, F.lit(role).alias("role"), F.posexplode(role).alias("_pos", "_t"))
            .select("*", "_t.*")
            .drop("_t")
            .withColumn("task", task_name())
        )
        return t.withColumn("escaped", _escaped(_CTX_ESCAPED, (_task_escaped(role), ("topology", "task")))).drop("_pos")

    rows = tasks("active").unionByName(tasks("standby")).unionByName(tasks("warmup")).withColumn("_te", _te())
    procs = (
        members.filter(F.col("member").isNotNull() & F.col("process_id").isNotNull())
        .groupBy("group", "generation", "member")
        .agg(F.first("process_id").alias("process_id"))
    )
    rows = (
        rows.alias("r")
        .join(
            procs.alias("p"),
            F.col("r.group").eqNullSafe(F.col("p.group"))
            & F.col("r.generation").eqNullSafe(F.col("p.generation"))
            & (F.col("r.member") == F.col("p.member")),
            "left",
        )
        .select("r.*", F.col("p.process_id"))
    )
    if cfg.num_standby_replicas is not None:
        lags = (
            task_lags.filter(F.col("member").isNotNull())
            .withColumn("_te", _te())
            .groupBy("group", "generation", "member", "task", "_te")
            .agg(F.max("offset_sum").alias("_sum"), F.max(F.col("lag_class").isin("running", "caught-up")).alias("_cu"))
        )
        rows = (
            rows.alias("r")
            .join(
                lags.alias("l"),
                F.col("r.group").eqNullSafe(F.col("l.group"))
                & F.col("r.generation").eqNullSafe(F.col("l.generation"))
                & (F.col("r.member") == F.col("l.member"))
                & (F.col("r.task") == F.col("l.task"))
                & (F.col("r._te") == F.col("l._te")),
                "left",
            )
            .select("r.*", "l._sum", "l._cu")
        )
        # a warmup is an extra replica while another client runs the task: a task without an active
        # owner in this generation (withheld for cooperative revocation) has standbys only
        has_active = (
            F.max((F.col("role") == "active").cast("int")).over(
                Window.partitionBy("group", "generation", "task", "_te")
            )
            == 1
        )
        ws = Window.partitionBy("group", "generation", "task", "_te", "role").orderBy(
            F.coalesce(F.col("_cu"), F.lit(False)).desc(),
            F.col("_sum").desc_nulls_last(),
            F.col("process_id").asc_nulls_last(),
            "member",
        )
        rows = rows.withColumn(
            "role",
            F.when(
                (F.col("role") == "standby") & has_active & (F.row_number().over(ws) > cfg.num_standby_replicas),
                "warmup",
            ).otherwise(F.col("role")),
        ).drop("_sum", "_cu")
    assignments = rows.select(
        *_ctx(),
        "process_id",
        "task",
        F.lit(None).cast("string").alias("topic"),
        "subtopology",
        "partition",
        "topology",
        "role",
        "partitions",
        "metadata_version",
        "commonly_supported_version",
        "error_code",
        "next_rebalance_ms",
        F.timestamp_millis(F.col("ts_ms")).alias("timestamp"),
        "record_id",
        "escaped",
        _date(),
    )
    share_topics, shared, consumed, revoking = _share_partitions(ok, names)

    def partition_rows(df: DataFrame, role: str, escaped) -> DataFrame:
        """A member's partitions (share, or a plain consumer's) as ``assignments`` rows: no task columns."""
        return df.select(
            *_ctx(),
            F.lit(None).cast("string").alias("process_id"),
            "task",
            "topic",
            F.lit(None).cast("int").alias("subtopology"),
            "partition",
            F.lit(None).cast("string").alias("topology"),
            F.lit(role).alias("role"),
            F.lit(None).cast("int").alias("partitions"),
            F.lit(None).cast("int").alias("metadata_version"),
            F.lit(None).cast("int").alias("commonly_supported_version"),
            F.lit(None).cast("int").alias("error_code"),
            F.lit(None).cast("bigint").alias("next_rebalance_ms"),
            F.timestamp_millis(F.col("ts_ms")).alias("timestamp"),
            "record_id",
            escaped,
            _date(),
        )

    k4_consumed = consumed
    consumed, consumed_escaped = _consumer_partitions(ok)
    assignments = assignments.unionByName(
        partition_rows(shared, "share", F.lit(None).cast("array<string>").alias("escaped"))
    ).unionByName(partition_rows(consumed, "consumer", consumed_escaped))
    no_escape = F.lit(None).cast("array<string>").alias("escaped")  # (topic names from the records' UTF-8)
    assignments = assignments.unionByName(partition_rows(k4_consumed, "consumer", no_escape)).unionByName(
        partition_rows(revoking, "pending-revocation", no_escape)
    )
    assignments = tables["assignments"] = materialize("assignments", assignments)

    # --- rebalances ----------------------------------------------------------------------------------
    rebalances = tables["rebalances"] = materialize("rebalances", rebalances_table(ok, assignments))

    # --- Kafka Connect workers -----------------------------------------------------------------------------
    c = _dedupe(ok.filter(F.col("unit_kind") == "connect"), "connect_layer")

    def listed(*names):  # a list column escaped when any of its entries is
        return [
            (
                F.exists(
                    F.coalesce(F.col("escaped"), F.array().cast("array<string>")), lambda x: x.startswith(f"{n}[")
                ),
                (col,),
            )
            for n, col in names
        ]

    connect = c.select(
        *_ctx(),
        F.col("connect_layer").alias("layer"),
        F.col("protocol_name").alias("protocol"),
        F.col("connect_version").alias("version"),
        "url",
        "config_offset",
        "connectors",
        F.col("connect_tasks").alias("tasks"),
        "revoked_connectors",
        "revoked_tasks",
        F.when(F.col("connectors").isNotNull(), F.size("connectors")).alias("connector_count"),
        F.when(F.col("connect_tasks").isNotNull(), F.size("connect_tasks")).alias("task_count"),
        "delay",
        F.col("connect_error").alias("error"),
        F.col("connect_leader").alias("leader"),
        "leader_url",
        F.timestamp_millis(F.col("ts_ms")).alias("timestamp"),
        "record_id",
        "source",
        _escaped(
            {
                **_CTX_ESCAPED,
                "protocol_name": "protocol",
                "url": "url",
                "connect_leader": "leader",
                "leader_url": "leader_url",
            },
            *listed(
                ("connectors", "connectors"),
                ("connect_tasks", "tasks"),
                ("revoked_connectors", "revoked_connectors"),
                ("revoked_tasks", "revoked_tasks"),
            ),
        ),
    )
    tables["connect"] = materialize("connect", connect)
    tables["offsets"] = materialize("offsets", _offsets(ok))
    tables["share_state"] = materialize("share_state", _share_state(ok))

    quarantine = units.filter(F.col("unit_kind") == "quarantine").select(
        "record_id",
        "source",
        "kind",
        "group",
        "member",
        "generation",
        F.timestamp_millis(F.col("ts_ms")).alias("timestamp"),
        "error_type",
        "error_message",
        "error_offset",
        "error_path",
        "error_layer",
        F.col("raw").alias("data"),
        F.hex("raw").alias("hex"),
        _escaped(
            {
                **_CTX_ESCAPED,
                "kind": "kind",
                "error_type": "error_type",
                "error_message": "error_message",
                "error_path": "error_path",
                "error_layer": "error_layer",
            }
        ),
    )

    asg_errors = a.filter((F.col("asg_error_code") != 0) & F.col("group").isNotNull()).select(
        "group", "generation", "member", F.col("asg_error_code").alias("error_code")
    )
    k4_errors = ok.filter(
        (F.col("unit_kind") == "group")
        & F.col("group_protocol").isNotNull()
        & (F.col("group_error_code") != 0)
        & F.col("group").isNotNull()
    ).select("group", "generation", "member", "group_protocol", F.col("group_error_code").alias("error_code"))
    share_findings = _share_findings(assignments, members, share_topics)
    # (not a table: the report lists the consumer generations the assignor checks could not check, and why)
    verdicts = tables["consumer_checks"] = consumer_assignor_checks(ok, dict(cfg.partitions))
    tables["findings"] = materialize(
        "findings",
        _findings(assignments, members, rebalances, asg_errors, cfg, k4_errors)
        .unionByName(share_findings)
        .unionByName(consumer_findings(assignments))
        .unionByName(consumer_move_findings(assignments, members, rebalances))
        .unionByName(verdicts.filter(F.col("check").isNotNull()).drop("checked", "why"))
        .unionByName(detector_findings(rebalances)),
    )
    tables["quarantine"] = materialize("quarantine", quarantine)
    return tables


def _offsets(ok: DataFrame) -> DataFrame:
    """``offsets``: one row per group x partition of each OffsetFetch response (:mod:`codec.pipeline.admin`)."""
    o = ok.filter((F.col("unit_kind") == "offsets") & (F.col("direction") != "request"))
    o = o.select("*", F.posexplode("committed").alias("_pos", "_c"))
    return o.select(
        "group",
        F.col("_c.topic").alias("topic"),
        F.col("_c.topic_id").alias("topic_id"),
        F.col("_c.partition").alias("partition"),
        F.col("_c.offset").alias("committed_offset"),
        F.col("_c.leader_epoch").alias("leader_epoch"),
        F.col("_c.metadata").alias("metadata"),
        F.col("_c.error_code").alias("error_code"),
        F.col("offsets_error_code").alias("group_error_code"),
        "kind",
        F.timestamp_millis(F.col("ts_ms")).alias("timestamp"),
        "record_id",
        "source",
        _escaped(
            {"group": "group", "kind": "kind"},
            (_task_escaped("committed", "topic"), ("topic",)),
            (_task_escaped("committed", "metadata"), ("metadata",)),
        ),
    )


def _share_state(ok: DataFrame) -> DataFrame:
    """``share_state``: one row per ``__share_group_state`` record (:mod:`codec.pipeline.admin`)."""
    return ok.filter(F.col("unit_kind") == "share-state").select(
        "group",
        F.col("state_topic_id").alias("topic_id"),
        F.col("state_partition").alias("partition"),
        F.col("state_record").alias("record"),
        "snapshot_epoch",
        "state_epoch",
        F.col("state_leader_epoch").alias("leader_epoch"),
        "start_offset",
        "delivery_complete_count",
        F.col("create_ms").alias("create_time_ms"),  # (as written: Kafka's -1 and Long.MAX_VALUE included)
        F.col("write_ms").alias("write_time_ms"),
        F.col("state_batches").alias("batches"),
        F.size("state_batches").alias("batch_count"),
        F.timestamp_millis(F.col("ts_ms")).alias("timestamp"),
        "record_id",
        "source",
        _escaped({"group": "group", "state_record": "record", "state_topic_id": "topic_id"}),
    )


def _client_id():
    """``members.client_id``: the unit's own (a frame's: its request header's), else -- a leader's JoinGroup
    response lists the members without it -- the one another row of the same group and member id has (its own
    JoinGroup request's; a member id is the coordinator's, one per client instance)."""
    own = F.when(~F.coalesce(F.array_contains(F.col("escaped"), "client_id"), F.lit(False)), F.col("client_id"))
    known = F.when(
        F.col("group").isNotNull() & F.col("member").isNotNull() & (F.col("member") != ""),
        F.min(own).over(Window.partitionBy("group", "member")),
    )
    return F.coalesce(F.col("client_id"), known).alias("client_id")


def _consumer_partitions(ok: DataFrame) -> tuple[DataFrame, object]:
    """A plain consumer's assigned partitions (its ConsumerProtocol assignment; each member's assignment unit
    deduplicated per group, generation and member): one row per member x partition, ``task``
    ``topic-partition`` (Kafka's TopicPartition.toString), and the ``escaped`` column of its rows."""
    ca = _dedupe(ok.filter((F.col("unit_kind") == "assignment") & F.col("topic_partitions").isNotNull()))
    rows = (
        ca.select(*_ctx(), "ts_ms", "record_id", "escaped", F.posexplode("topic_partitions").alias("_pos", "_tp"))
        .select("*", F.col("_tp.topic").alias("topic"), F.explode("_tp.partitions").alias("partition"))
        .withColumn("task", F.concat(F.col("topic"), F.lit("-"), F.col("partition").cast("string")))
    )
    return rows, _escaped(_CTX_ESCAPED, (_task_escaped("topic_partitions", "topic"), ("topic", "task")))


def _owned_partitions():
    """``members.owned_partitions``: ``{topic, partitions, topic_id}`` per topic a member owns -- a classic
    subscription's (``topic_id`` null), or a KIP-848 heartbeat request's ``topicPartitions`` (by id: ``topic`` the
    name :func:`_topic_names` knows, null where no input of the group names the id; ``topic_id`` always set)."""
    none = F.lit(None).cast("string")
    classic = F.transform(
        "owned_partitions",
        lambda x: F.struct(x["topic"].alias("topic"), x["partitions"].alias("partitions"), none.alias("topic_id")),
    )
    by_id = F.transform(
        "owned_topic_ids",
        lambda x: F.struct(
            F.try_element_at(F.col("_names"), x["topic_id"]).alias("topic"),
            x["partitions"].alias("partitions"),
            x["topic_id"].alias("topic_id"),
        ),
    )
    return F.coalesce(classic, by_id).alias("owned_partitions")


def _topic_names(ok: DataFrame) -> DataFrame:
    """The topic names each group's inputs give its topic ids (``group``, ``topic_id``, ``_name``): a share or
    KIP-848 group's records and Describe responses (``share_topics``), and the Metadata responses of the same
    input files (``source``) as the group's records; an id named two ways keeps the least name."""
    own = ok.filter(F.col("share_topics").isNotNull()).select("group", F.explode("share_topics").alias("_t"))
    sources = ok.filter(F.col("group").isNotNull()).select("group", "source").distinct()
    metadata = (
        ok.filter(F.col("metadata_topics").isNotNull())
        .select("source", F.explode("metadata_topics").alias("_t"))
        .join(sources, "source")
        .select("group", "_t")
    )
    both = own.select("group", F.col("_t.topic_id").alias("topic_id"), F.col("_t.topic").alias("topic")).unionByName(
        metadata.select("group", F.col("_t.topic_id").alias("topic_id"), F.col("_t.topic").alias("topic"))
    )
    return (
        both.filter(F.col("topic").isNotNull() & F.col("topic_id").isNotNull())
        .groupBy("group", "topic_id")
        .agg(F.min("topic").alias("_name"))
    )


def _share_partitions(ok: DataFrame, names: DataFrame) -> tuple[DataFrame, DataFrame, DataFrame, DataFrame]:
    """A share group's topics (``group``, ``topic_id``, ``topic``, ``partitions``: the ones to hold, null when
    unknown) from its records and Describe responses (a KIP-848 consumer group's too: its partition metadata
    records, its Describe responses), and one row per member x partition it holds (each member's assignment unit
    deduplicated per group, epoch and member), the topic named where any unit names it (``task``:
    ``topic-partition``; the topic id in Kafka's form when no input names it): a share member's, a KIP-848
    consumer member's, and the consumer member's partitions pending revocation."""
    topics = (
        ok.filter(F.col("share_topics").isNotNull())
        .select("group", F.explode("share_topics").alias("_t"))
        .select("group", "_t.*")
    )

    def deduped(column: str) -> DataFrame:
        return _dedupe(ok.filter((F.col("unit_kind") == "assignment") & F.col(column).isNotNull()))

    def rows_of(sa: DataFrame, column: str) -> DataFrame:
        rows = sa.select(*_ctx(), "ts_ms", "record_id", F.explode(column).alias("_s")).select("*", "_s.*").drop("_s")
        rows = (
            rows.alias("r")
            .join(
                names.alias("n"),
                F.col("r.group").eqNullSafe(F.col("n.group")) & (F.col("r.topic_id") == F.col("n.topic_id")),
                "left",
            )
            .select("r.*", "n._name")
        )
        return (
            rows.withColumn("topic", F.coalesce("topic", "_name"))
            .drop("_name")
            .withColumn(
                "task", F.concat(F.coalesce("topic", "topic_id"), F.lit("-"), F.col("partition").cast("string"))
            )
        )

    consumers = deduped("consumed")  # (a member's partitions and those it is revoking from one unit)
    return topics, rows_of(deduped("shared"), "shared"), rows_of(consumers, "consumed"), rows_of(consumers, "revoking")
