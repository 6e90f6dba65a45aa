// kafkajs' own RoundRobinAssigner run on a captured generation: reads {"members": [{"memberId", "metadata" (hex)}],
// "topics": [the leader's subscription, in its order], "partitions": {topic: count}} on stdin and prints
// {memberId: the MemberAssignment bytes kafkajs writes, hex}. Usage: node kafkajs_assign.js < input.json
const { PartitionAssigners } = require('kafkajs');

let input = '';
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', async () => {
  const { members, topics, partitions } = JSON.parse(input);
  const cluster = {
    findTopicPartitionMetadata: (topic) => Array.from({ length: partitions[topic] || 0 }, (_, p) => ({ partitionId: p })),
  };
  const assigner = PartitionAssigners.roundRobin({ cluster });
  const out = await assigner.assign({
    members: members.map((m) => ({ memberId: m.memberId, memberMetadata: Buffer.from(m.metadata, 'hex') })),
    topics,
  });
  const answer = {};
  for (const { memberId, memberAssignment } of out) answer[memberId] = memberAssignment.toString('hex');
  console.log(JSON.stringify(answer));
});
