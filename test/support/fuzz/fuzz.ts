import * as http from 'http'
import fc from 'fast-check'
import { Answer, AnswerCheck } from './answers'
import { DocumentedOperation, OpenApiDocument } from './document'
import { FuzzRequest, RequestArbitraries, RequestPreferences } from './requests'

/**
 * A property-based fuzzer over a running service's OpenAPI 3.1 document: for every operation,
 * fast-check makes valid and invalid requests from its schemas, sends them over HTTP and checks
 * every answer against the document (answers.ts). docs/testing.md#fuzzing
 */

export type Kind = 'valid' | 'invalid'

export interface FuzzOptions extends RequestPreferences {
    baseUrl: string
    /** The document; by default fetched from `${baseUrl}/api/docs/openapi.json`. */
    document?: object
    seed: number
    /** Requests per operation and kind (valid, invalid). */
    runs: number
    /** Operations not fuzzed at all, by key: `POST /api/things/{id}`. */
    skip?: readonly string[]
    /** Operations fuzzed with invalid requests only (they send mail or move money when the request is valid). */
    invalidOnly?: readonly string[]
    /** 5xx statuses this surface may answer, where the operation documents them (e.g. 503 while a dependency is away). */
    expected5xx?: readonly number[]
    /** Per request; no answer in time is a failure. */
    timeoutMs?: number
    /** Replays one property: its kind and operation, and with `path` one counterexample (printed with every failure). */
    replay?: { kind: Kind; operation: string; path?: string }
}

export interface FuzzFailure {
    operation: string
    kind: Kind
    problem: string
    request: FuzzRequest
    answer?: Answer
    /** fast-check's seed and counterexample path of this property. */
    seed: number
    path: string
    /** Environment for `npm run fuzz` that replays the failure. */
    replay: string
}

export interface FuzzReport {
    /** Operations fuzzed, with the kinds each got. */
    operations: { key: string; kinds: Kind[] }[]
    requests: number
    /** Answers by status. */
    statuses: Record<number, number>
    /** Answers by operation key and status. */
    byOperation: Record<string, Record<number, number>>
    failures: FuzzFailure[]
}

class AnswerProblem extends Error {
    constructor(readonly problem: string, readonly request: FuzzRequest, readonly answer?: Answer) {
        super(problem)
    }
}

export async function fuzzApi(options: FuzzOptions): Promise<FuzzReport> {
    const doc = new OpenApiDocument(options.document ?? await fetchDocument(options.baseUrl))
    const operations = doc.operations()
    const known = new Set(operations.map((o) => o.key))
    for (const key of [...options.skip ?? [], ...options.invalidOnly ?? [], ...(options.replay ? [options.replay.operation] : [])]) {
        if (!known.has(key)) throw new Error(`fuzz options name ${key}, which the document does not have`)
    }
    const requests = new RequestArbitraries(doc, options)
    const check = new AnswerCheck(doc, options.expected5xx)
    const report: FuzzReport = { operations: [], requests: 0, statuses: {}, byOperation: {}, failures: [] }

    for (const op of operations) {
        if (options.skip?.includes(op.key)) continue
        const kinds: Kind[] = options.invalidOnly?.includes(op.key) ? ['invalid'] : ['valid', 'invalid']
        const chosen = kinds.filter((k) => !options.replay || (options.replay.kind === k && options.replay.operation === op.key))
        if (chosen.length === 0) continue
        report.operations.push({ key: op.key, kinds: chosen })
        for (const kind of chosen) {
            const arbitrary = kind === 'valid' ? requests.valid(op) : requests.invalid(op)
            const seed = propertySeed(options.seed, kind, op.key)
            const property = fc.asyncProperty(arbitrary, async (request) => {
                const answer = await send(options.baseUrl, request, options.timeoutMs ?? 10_000).catch((err: Error) => {
                    throw new AnswerProblem(`no answer: ${err.message}`, request)
                })
                report.requests++
                report.statuses[answer.status] = (report.statuses[answer.status] ?? 0) + 1
                const counts = (report.byOperation[op.key] ??= {})
                counts[answer.status] = (counts[answer.status] ?? 0) + 1
                const problem = check.problem(op, answer)
                if (problem) throw new AnswerProblem(problem, request, answer)
            })
            const details = await fc.check(property, { seed, numRuns: options.runs, path: options.replay?.path })
            if (details.failed) report.failures.push(failureOf(op, kind, details, options))
        }
    }
    return report
}

/** Each property's own seed, from the run's seed and the property's name: skipping one operation changes no other's requests. */
function propertySeed(seed: number, kind: Kind, key: string): number {
    let h = seed | 0
    for (const c of `${kind} ${key}`) h = Math.imul(h ^ c.charCodeAt(0), 0x9e3779b1) | 0
    return h
}

function failureOf(op: DocumentedOperation, kind: Kind, details: fc.RunDetails<[FuzzRequest]>, options: FuzzOptions): FuzzFailure {
    const err = details.errorInstance
    const sent = details.counterexample?.[0] ?? { method: op.method, url: op.path, headers: {}, intent: kind }
    // The credentials the test gave stay out of reports.
    const given = new Map(Object.entries(options.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]))
    const headers = Object.fromEntries(Object.entries(sent.headers).map(([k, v]) => [k, given.get(k) === v ? '(given)' : v]))
    const request = { ...sent, headers }
    const path = details.counterexamplePath ?? ''
    return {
        operation: op.key,
        kind,
        problem: err instanceof AnswerProblem ? err.problem : `the property failed: ${err instanceof Error ? err.stack : String(err)}`,
        request,
        answer: err instanceof AnswerProblem ? err.answer : undefined,
        seed: details.seed,
        path,
        replay: `FUZZ_SEED=${options.seed} FUZZ_RUNS=${options.runs} FUZZ_REPLAY='${kind} ${op.key}' FUZZ_PATH='${path}'`,
    }
}

async function fetchDocument(baseUrl: string): Promise<object> {
    const res = await fetch(`${baseUrl}/api/docs/openapi.json`)
    if (!res.ok) throw new Error(`GET ${baseUrl}/api/docs/openapi.json answered ${res.status}`)
    return res.json() as Promise<object>
}

/**
 * One request on a connection of its own. With fetch's pool of kept-alive connections, two runs on
 * a loaded machine (parallel workers) each had one request fail as "fetch failed" while the service
 * went on answering: the sign of a kept-alive connection the server closed as the next request went
 * out, a race of the client's pool and not an answer of the service. A fresh connection per request
 * has no such race; a service that dies or resets still fails the request, and the error now names
 * its code (fetch hid it).
 */
function send(baseUrl: string, request: FuzzRequest, timeoutMs: number): Promise<Answer> {
    const headers: Record<string, string> = { ...request.headers }
    // What fetch sent for a body without a type, kept so that the requests stay the same.
    if (request.body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'text/plain;charset=UTF-8'
    return new Promise((resolve, reject) => {
        const req = http.request(new URL(`${baseUrl}${request.url}`), { method: request.method, headers, agent: false }, (res) => {
            const chunks: Buffer[] = []
            res.on('data', (chunk: Buffer) => chunks.push(chunk))
            res.on('end', () => resolve({ status: res.statusCode!, contentType: res.headers['content-type'] ?? '', text: Buffer.concat(chunks).toString('utf8') }))
            res.on('error', reject)
        })
        const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)
        req.on('close', () => clearTimeout(timer))
        req.on('error', (err: NodeJS.ErrnoException) => reject(new Error(err.code ? `${err.message} (${err.code})` : err.message)))
        req.end(request.body)
    })
}

/** One line per operation: the statuses its requests were answered with, e.g. `GET /api/v2/blocks/{block}: 200×9 404×3 422×18`. */
export function describeCoverage(report: FuzzReport): string {
    const lines = report.operations.map((o) => `${o.key}: ${Object.entries(report.byOperation[o.key] ?? {}).map(([status, n]) => `${status}×${n}`).join(' ')}`)
    return [`${report.operations.length} operations, ${report.requests} requests`, ...lines].join('\n')
}

/** A report's failures as one readable message (the request, the answer, how to replay). */
export function describeFailures(report: FuzzReport): string {
    return report.failures.map((f) => [
        `${f.operation} (${f.kind}: ${f.request.intent}): ${f.problem}`,
        `  request: ${f.request.method} ${f.request.url}${Object.keys(f.request.headers).length ? ` headers ${JSON.stringify(f.request.headers)}` : ''}`,
        f.request.body !== undefined ? `  body: ${clip(f.request.body)}` : undefined,
        f.answer ? `  answer: ${f.answer.status} ${f.answer.contentType} ${clip(f.answer.text)}` : undefined,
        `  fast-check seed ${f.seed}, path ${f.path}; replay: ${f.replay}`,
    ].filter((line) => line !== undefined).join('\n')).join('\n\n')
}

function clip(text: string): string {
    return text.length > 600 ? `${text.slice(0, 600)}… (${text.length} characters)` : text
}
