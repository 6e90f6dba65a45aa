'use strict'
/*
 * kafkajs behind rebalance-codec's conformance line protocol: a worked example for client authors.
 *
 *   npm ci                       # kafkajs 2.2.4, pinned by package-lock.json
 *   rebalance-codec conformance --impl 'node adapter.js' --expect expect.txt
 *
 * Reads one JSON request a line on stdin and answers one JSON line on stdout, in order, until stdin
 * closes, writing each reply out before reading the next request; each reply echoes its request's "id"
 * (the line protocol's version 2). Like most clients, kafkajs only writes
 * requests and only reads responses: this adapter encodes JoinGroup, SyncGroup, Heartbeat and LeaveGroup
 * requests (bodies, and frames as kafkajs sends them, less the int32 size a frame vector does not have)
 * and decodes their responses (bodies, and frames as kafkajs' connection reads them after the size), at
 * the versions kafkajs has, through kafkajs' own protocol modules. Everything else is declined with
 * {"unsupported": "..."}, which the runner skips. Values are Kafka's JSON shape (camelCase, bytes as
 * base64); wire bytes are hex.
 */
const readline = require('readline')
const Decoder = require('kafkajs/src/protocol/decoder')
const createRequest = require('kafkajs/src/protocol/request')

const KAFKAJS = 'kafkajs ' + require('kafkajs/package.json').version
// Kafka's API name -> kafkajs' module folder and the API key (a response frame does not carry it)
const APIS = {
  JoinGroup: { dir: 'joinGroup', apiKey: 11 },
  SyncGroup: { dir: 'syncGroup', apiKey: 14 },
  Heartbeat: { dir: 'heartbeat', apiKey: 12 },
  LeaveGroup: { dir: 'leaveGroup', apiKey: 13 },
}
for (const api of Object.values(APIS)) {
  api.versions = require(`kafkajs/src/protocol/requests/${api.dir}`).versions.map(Number)
}
const module_ = (api, version, half) => require(`kafkajs/src/protocol/requests/${api.dir}/v${version}/${half}`)

const fromBase64 = s => (s == null ? s : Buffer.from(s, 'base64'))
const toBase64 = b => (b == null ? b : b.toString('base64'))

// Kafka's value of a request -> the arguments kafkajs' request of that version takes
const REQUEST_ARGS = {
  JoinGroup: v => ({
    groupId: v.groupId, sessionTimeout: v.sessionTimeoutMs, rebalanceTimeout: v.rebalanceTimeoutMs,
    memberId: v.memberId, groupInstanceId: v.groupInstanceId, protocolType: v.protocolType,
    groupProtocols: (v.protocols === undefined ? [] : v.protocols)
      .map(p => ({ name: p.name, metadata: fromBase64(p.metadata) })),
  }),
  SyncGroup: v => ({
    groupId: v.groupId, generationId: v.generationId, memberId: v.memberId, groupInstanceId: v.groupInstanceId,
    groupAssignment: (v.assignments === undefined ? [] : v.assignments)
      .map(a => ({ memberId: a.memberId, memberAssignment: fromBase64(a.assignment) })),
  }),
  Heartbeat: v => ({
    groupId: v.groupId, groupGenerationId: v.generationId, memberId: v.memberId, groupInstanceId: v.groupInstanceId,
  }),
  LeaveGroup: v => ({ groupId: v.groupId, memberId: v.memberId, members: v.members === undefined ? [] : v.members }),
}

// kafkajs' decoded response -> Kafka's value. From the versions where Kafka's clients throttle
// themselves (KIP-219), kafkajs reports the wire's throttle time as clientSideThrottleTime.
const throttle = r => (r.clientSideThrottleTime !== undefined ? r.clientSideThrottleTime : r.throttleTime)
const RESPONSE_VALUE = {
  JoinGroup: r => ({
    throttleTimeMs: throttle(r), errorCode: r.errorCode, generationId: r.generationId,
    protocolName: r.groupProtocol, leader: r.leaderId, memberId: r.memberId,
    members: r.members.map(m => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, metadata: toBase64(m.memberMetadata) })),
  }),
  SyncGroup: r => ({ throttleTimeMs: throttle(r), errorCode: r.errorCode, assignment: toBase64(r.memberAssignment) }),
  Heartbeat: r => ({ throttleTimeMs: throttle(r), errorCode: r.errorCode }),
  LeaveGroup: r => ({ throttleTimeMs: throttle(r), errorCode: r.errorCode, members: r.members }),
}

function capabilities () { // the answer to the optional first request: what this adapter does, asked once
  const caps = []
  for (const [name, api] of Object.entries(APIS)) {
    const versions = `${Math.min(...api.versions)}-${Math.max(...api.versions)}`
    caps.push({ op: 'encode', message: `${name}Request`, versions })
    caps.push({ op: 'decode', message: `${name}Response`, versions })
  }
  const newest = `0-${Math.max(...Object.values(APIS).map(api => Math.max(...api.versions)))}`
  caps.push({ op: 'encode', message: 'RequestFrame', versions: newest }) // per API key: checked in answer()
  caps.push({ op: 'decode', message: 'ResponseFrame', versions: newest })
  return { capabilities: caps }
}

async function answer (req) {
  if (req.op === 'capabilities') return capabilities()
  // Which API, and which half of it: a request frame names its API key, a response frame is given it
  let name, half
  if (req.message === 'RequestFrame' || req.message === 'ResponseFrame') {
    const apiKey = req.message === 'RequestFrame' ? (req.value || {}).apiKey : req.apiKey
    name = Object.keys(APIS).find(n => APIS[n].apiKey === apiKey)
    half = req.message === 'RequestFrame' ? 'request' : 'response'
  } else {
    [, name, half] = /^(\w+?)(Request|Response)$/.exec(req.message || '') || []
    half = half && half.toLowerCase()
  }
  const api = APIS[name]
  if (!api || !api.versions.includes(req.version) || (half === 'request') !== (req.op === 'encode')) {
    return { unsupported: `${KAFKAJS} has no ${req.op} of ${req.message} v${req.version}` +
             (api || !/Frame$/.test(req.message) ? '' : ' of this API key') }
  }
  if (half === 'request') {
    const frame = req.message === 'RequestFrame'
    const body = frame ? req.value.body : req.value
    const request = module_(api, req.version, 'request')(REQUEST_ARGS[name](body))
    if (!frame) return { wire: (await request.encode()).buffer.toString('hex') }
    // kafkajs writes a frame as it sends it: int32 size, header v1, body. A frame vector has no size.
    const { correlationId, clientId } = req.value.header
    const sent = await createRequest({ correlationId, clientId, request })
    return { wire: sent.buffer.subarray(4).toString('hex') }
  }
  let body = Buffer.from(req.wire, 'hex')
  let header
  if (req.message === 'ResponseFrame') { // as kafkajs' connection reads a response after its size
    const decoder = new Decoder(body)
    header = { correlationId: decoder.readInt32() }
    body = decoder.readAll()
  }
  const value = RESPONSE_VALUE[name](await module_(api, req.version, 'response').decode(body))
  if (!header) return { value }
  return { value: { apiKey: api.apiKey, apiVersion: req.version, headerVersion: 0, header, body: value } }
}

// Replies go out in order, each written whole before the next request is read (the runner waits for
// the newline of each reply; a reply left in a buffer is a timeout).
const send = obj => new Promise(resolve => process.stdout.write(JSON.stringify(obj) + '\n', resolve))

async function main () {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity })
  for await (const line of lines) {
    if (!line.trim()) continue
    const req = JSON.parse(line)
    let reply
    try {
      reply = await answer(req)
    } catch (e) { // kafkajs refused the input: that is an answer, not a crash
      reply = { error: { message: `${(e && e.name) || 'Error'}: ${(e && e.message) || e}` } }
    }
    await send({ id: req.id, ...reply }) // protocol 2: every reply echoes its request's id
  }
}

main()
