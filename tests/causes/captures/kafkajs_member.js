// One kafkajs group member for tests/causes/captures/harness.py (our own code; see its docstring).
// Usage: node kafkajs_member.js <bootstrap> <group> <clientId> <sessionMs> <heartbeatMs> <topics,comma,separated>
// Reads orders on stdin ("stop": disconnect, which leaves the group) and writes what it sees as JSON lines:
// its member id on each GROUP_JOIN, and when it closes.
const { Kafka, logLevel, PartitionAssigners } = require('kafkajs');
const readline = require('readline');
// kafkajs' own round-robin assigner, its assign() 500 ms late (timing only: name, metadata and bytes are
// kafkajs'): librdkafka's mock answers a follower's SyncGroup that comes after the leader's with an error.
const delayed = (cfg) => {
  const rr = PartitionAssigners.roundRobin(cfg);
  return { ...rr, assign: async (arg) => { await new Promise(r => setTimeout(r, 500)); return rr.assign(arg); } };
};
const [bootstrap, groupId, clientId, sessionMs, heartbeatMs, topics] = process.argv.slice(2);
const say = (fields) => console.log(JSON.stringify({ t: Date.now() / 1000, ...fields }));
(async () => {
  const kafka = new Kafka({ clientId, brokers: bootstrap.split(','), logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({
    groupId, sessionTimeout: parseInt(sessionMs), heartbeatInterval: parseInt(heartbeatMs), rebalanceTimeout: 10000,
    maxWaitTimeInMs: 500, partitionAssigners: [delayed],
  });
  consumer.on(consumer.events.GROUP_JOIN, e => {
    const a = e.payload.memberAssignment;
    const partitions = Object.keys(a).sort().flatMap(t => a[t].map(p => `${t}-${p}`));
    say({ event: 'assignment', member_id: e.payload.memberId, leader: e.payload.isLeader, partitions });
  });
  await consumer.connect();
  await consumer.subscribe({ topics: topics.split(','), fromBeginning: true });
  await consumer.run({ eachMessage: async () => {} });
  const rl = readline.createInterface({ input: process.stdin });
  for await (const line of rl) {
    if (line.trim() === 'stop') break;
  }
  say({ event: 'closing' });
  await consumer.disconnect();
  say({ event: 'closed' });
  process.exit(0);
})().catch(e => { console.error(e); process.exit(1); });
