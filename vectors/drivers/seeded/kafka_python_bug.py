"""The kafka-python driver with one behaviour bug seeded into kafka-python itself (monkeypatched), to measure
the behaviour gate: every bug here must fail at least one scenario (vectors/drivers/README.md, "Seeded bugs").

    python3 vectors/drivers/seeded/kafka_python_bug.py BUG

BUG is one of:

* keep-member-id: the member keeps its member id where kafka-python would reset it (UNKNOWN_MEMBER_ID);
* skip-revocation: the revocation callback is never called (eager rebalances, cooperative revocations);
* ignore-rebalance-in-progress: a heartbeat answered REBALANCE_IN_PROGRESS is taken as a success;
* reset-member-id: a heartbeat answered REBALANCE_IN_PROGRESS resets the member id and generation before the
  rejoin (aiokafka before its PR #747: the rejoin as a new member started another rebalance, for ever);
* stop-heartbeating: after its first heartbeat the member sends no other (it pretends they succeed);
* drop-owned-partitions: the cooperative subscription leaves its owned partitions out;
* never-connects: the driver declares what it supports and never starts the client.
"""

import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kafka-python"))

BUGS = (
    "keep-member-id",
    "skip-revocation",
    "ignore-rebalance-in-progress",
    "reset-member-id",
    "stop-heartbeating",
    "drop-owned-partitions",
    "never-connects",
)


def seed(bug):
    from kafka.coordinator.assignors.cooperative_sticky import CooperativeStickyAssignor
    from kafka.coordinator.base import BaseCoordinator
    from kafka.coordinator.consumer import ConsumerCoordinator

    if bug == "keep-member-id":
        reset = BaseCoordinator.reset_generation

        def keep(self, member_id=""):
            reset(self, member_id=member_id or self._generation.member_id)

        BaseCoordinator.reset_generation = keep
    elif bug == "skip-revocation":
        invoke = ConsumerCoordinator._invoke_rebalance_listener_async

        async def no_revoke(self, method, *args, **kwargs):
            if method == "on_partitions_revoked":
                return None
            return await invoke(self, method, *args, **kwargs)

        ConsumerCoordinator._invoke_rebalance_listener_async = no_revoke
    elif bug == "ignore-rebalance-in-progress":
        handle = BaseCoordinator._handle_heartbeat_response

        def ignore(self, response, send_time):
            if response.error_code == 27:
                return None
            return handle(self, response, send_time)

        BaseCoordinator._handle_heartbeat_response = ignore
    elif bug == "reset-member-id":
        handle = BaseCoordinator._handle_heartbeat_response

        def forget(self, response, send_time):
            if response.error_code == 27:
                self.reset_generation()
            return handle(self, response, send_time)

        BaseCoordinator._handle_heartbeat_response = forget
    elif bug == "stop-heartbeating":
        send = BaseCoordinator._send_heartbeat_request
        sent = []

        async def once(self):
            if sent:
                return None
            sent.append(1)
            return await send(self)

        BaseCoordinator._send_heartbeat_request = once
    elif bug == "drop-owned-partitions":
        metadata = CooperativeStickyAssignor.metadata

        def without_owned(self, topics):
            kept, self.member_assignment = self.member_assignment, None
            try:
                return metadata(self, topics)
            finally:
                self.member_assignment = kept

        CooperativeStickyAssignor.metadata = without_owned
    else:
        raise SystemExit(f"unknown bug {bug!r} (known: {', '.join(BUGS)})")


def main():
    bug = sys.argv[1] if len(sys.argv) > 1 else ""
    if bug == "never-connects":
        sys.stdout.write('{"supports": ["classic", "eager", "cooperative", "static"]}\n')
        sys.stdout.flush()
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        while True:
            time.sleep(1)
    seed(bug)
    import driver

    return driver.main()


if __name__ == "__main__":
    sys.exit(main())
