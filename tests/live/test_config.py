"""``watch``'s client configuration: ``--config`` read as Java's ``Properties.load`` reads a client properties file,
``-X`` over it, the settings that would make it join a group or commit refused, and the partition lists of
``--partitions``."""

from __future__ import annotations

import argparse

import pytest

from codec.errors import InputError
from codec.live.config import FIXED, client_config, parse_partitions, parse_properties, setting


def test_a_properties_file_as_java_reads_one():
    text = (
        "# a comment\n! another\n\n"
        "bootstrap.servers=kafka-1:9093,kafka-2:9093\n"
        "security.protocol : SASL_SSL\n"
        "sasl.mechanisms SCRAM-SHA-512\n"
        "sasl.jaas.config=a \\\n    b\n"
        "   ssl.ca.location=/etc/ca.pem\n"
        "empty=\n"
    )
    assert parse_properties(text) == {
        "bootstrap.servers": "kafka-1:9093,kafka-2:9093",
        "security.protocol": "SASL_SSL",
        "sasl.mechanisms": "SCRAM-SHA-512",
        "sasl.jaas.config": "a b",
        "ssl.ca.location": "/etc/ca.pem",
        "empty": "",
    }


def test_x_wins_over_the_file_and_the_file_over_the_defaults(tmp_path):
    f = tmp_path / "c.properties"
    f.write_text("bootstrap.servers=from-file:9092\nclient.id=file\nsecurity.protocol=SSL\n", encoding="utf-8")
    conf = client_config("from-flag:9092", str(f), [("client.id", "x"), ("sasl.username", "u=v")])
    assert conf["bootstrap.servers"] == "from-file:9092" and conf["client.id"] == "x"
    assert conf["security.protocol"] == "SSL" and conf["sasl.username"] == "u=v"
    assert conf["group.id"] == "rebalance-codec-watch" and all(conf[k] == v for k, v in FIXED.items())
    assert client_config("b:1", None, [])["bootstrap.servers"] == "b:1"


def test_what_would_join_or_commit_is_refused_in_one_line(tmp_path):
    with pytest.raises(InputError, match="enable.auto.commit=true cannot be set"):
        client_config("b:1", None, [("enable.auto.commit", "true")])
    with pytest.raises(InputError, match="no cluster to watch"):
        client_config(None, None, [])
    with pytest.raises(InputError, match="cannot be read"):
        client_config("b:1", str(tmp_path / "missing.properties"), [])
    with pytest.raises(argparse.ArgumentTypeError, match="not a key=value setting"):
        setting("security.protocol")


def test_partition_lists():
    assert parse_partitions("0-24") == list(range(25))
    assert parse_partitions("3") == [3] and parse_partitions("0-2,10-11,1") == [0, 1, 2, 10, 11]
    for bad in ("a", "5-2", "-1", "1-"):
        with pytest.raises(argparse.ArgumentTypeError):
            parse_partitions(bad)
