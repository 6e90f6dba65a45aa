// One kafkajs group member for harness.py: kafkajs' own RoundRobinAssigner, its assign() first waiting 500 ms
// (timing only: name, metadata and encoding are kafkajs'), because librdkafka's mock coordinator refuses a
// follower's SyncGroup that arrives after the leader's. Logs every assignment kafkajs reports (GROUP_JOIN).
// Usage: node kafkajs_member.js <bootstrap> <group> <clientId> <holdSeconds> <topic>...
const { Kafka, logLevel, PartitionAssigners } = require('kafkajs');

const delayedRoundRobin = (config) => {
  const assigner = PartitionAssigners.roundRobin(config);
  return {
    ...assigner,
    assign: async (arg) => {
      await new Promise((r) => setTimeout(r, 500));
      return assigner.assign(arg);
    },
  };
};

const [bootstrap, groupId, clientId, hold, ...topics] = process.argv.slice(2);
(async () => {
  const kafka = new Kafka({ clientId, brokers: [bootstrap], logLevel: logLevel.WARN });
  const consumer = kafka.consumer({
    groupId, sessionTimeout: 4000, heartbeatInterval: 1000, rebalanceTimeout: 10000, maxWaitTimeInMs: 500,
    partitionAssigners: [delayedRoundRobin],
  });
  consumer.on(consumer.events.GROUP_JOIN, (e) => {
    const parts = [];
    for (const [topic, ps] of Object.entries(e.payload.memberAssignment)) for (const p of ps) parts.push(`${topic}-${p}`);
    parts.sort();
    console.error(JSON.stringify({ clientId, t: Date.now() / 1000, assignment: parts, leader: e.payload.isLeader,
                                   protocol: e.payload.groupProtocol, memberId: e.payload.memberId }));
  });
  await consumer.connect();
  await consumer.subscribe({ topics, fromBeginning: true });
  await consumer.run({ eachMessage: async () => {} });
  await new Promise((r) => setTimeout(r, parseFloat(hold) * 1000));
  await consumer.disconnect();
  process.exit(0);
})().catch((e) => { console.error(e); process.exit(1); });
