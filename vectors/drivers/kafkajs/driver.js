// kafkajs as a group consumer, behind rebalance-codec's behaviour gate (the driver contract:
// vectors/drivers/README.md).
//
//     rebalance-codec conformance --behaviour --client 'node vectors/drivers/kafkajs/driver.js'
//
// kafkajs (2.2.4, package-lock.json) speaks the classic protocol with its own eager round-robin assigner; it has
// no static membership and no cooperative rebalancing, and no revocation callback: its REBALANCING event, which
// it emits when it stops fetching to rejoin, is reported as the revocation of everything it was assigned.
'use strict'

const { Kafka, logLevel, PartitionAssigners } = require('kafkajs')

function say(line) {
  process.stdout.write(JSON.stringify(line) + '\n')
}

function partitions(assignment) {
  const out = []
  for (const [topic, ps] of Object.entries(assignment || {})) {
    for (const p of ps) out.push([topic, p])
  }
  return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]))
}

async function main() {
  say({ supports: ['classic', 'eager'] })
  const env = process.env
  if ((env.REBALANCE_PROTOCOL || 'classic') !== 'classic') {
    say({ event: 'error', message: 'kafkajs speaks the classic group protocol only' })
    return 1
  }
  const kafka = new Kafka({
    clientId: env.REBALANCE_CLIENT_ID,
    brokers: [env.REBALANCE_BOOTSTRAP],
    logLevel: logLevel.NOTHING,
  })
  const consumer = kafka.consumer({
    groupId: env.REBALANCE_GROUP,
    sessionTimeout: Number(env.REBALANCE_SESSION_TIMEOUT_MS),
    heartbeatInterval: Number(env.REBALANCE_HEARTBEAT_INTERVAL_MS),
    rebalanceTimeout: Number(env.REBALANCE_REBALANCE_TIMEOUT_MS),
    maxWaitTimeInMs: 100,
    partitionAssigners: [PartitionAssigners.roundRobin],
  })
  let owned = []
  consumer.on(consumer.events.GROUP_JOIN, e => {
    owned = partitions(e.payload.memberAssignment)
    say({ event: 'assigned', partitions: owned })
  })
  consumer.on(consumer.events.REBALANCING, () => {
    say({ event: 'revoked', partitions: owned })
    owned = []
  })
  consumer.on(consumer.events.CRASH, e => {
    say({ event: 'error', message: String(e.payload.error && e.payload.error.message) })
    if (!e.payload.restart) process.exit(1)
  })
  let stopping = false
  process.on('SIGTERM', async () => {
    if (stopping) return
    stopping = true
    try {
      await consumer.disconnect()
    } finally {
      process.exit(0)
    }
  })
  await consumer.connect()
  await consumer.subscribe({ topics: env.REBALANCE_TOPICS.split(','), fromBeginning: true })
  await consumer.run({ eachMessage: async () => {} })
  return 0
}

main().catch(e => {
  say({ event: 'error', message: String(e && e.message) })
  process.exit(1)
})
