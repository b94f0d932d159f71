import fc from 'fast-check'
import { DocumentedOperation, OpenApiDocument, Parameter } from './document'
import { Broken, hostileStrings, invalidValues, invalidWireValues } from './invalid-values'
import { validValues } from './valid-values'

/**
 * HTTP requests for one documented operation, made by fast-check from its parameter and body
 * schemas: valid ones, and invalid ones (a valid request with one part broken). docs/testing.md#fuzzing
 */

export interface FuzzRequest {
    method: string
    /** Path and query string, percent-encoded, relative to the base URL. */
    url: string
    headers: Record<string, string>
    body?: string
    /** `valid`, or which part was broken and how, e.g. `query page: below minimum`. */
    intent: string
}

export interface RequestPreferences {
    /** Preferred values by parameter (path, query or header) or top-level body property name: real ids, so valid requests reach real rows. */
    values?: Record<string, readonly string[]>
    /** Sent with every request; a documented header parameter of that name always takes this value in valid requests. */
    headers?: Record<string, string>
    /** Path parameters that are not valid percent-encoding (the router answers 400); on unless turned off. */
    malformedEscapes?: boolean
}

type Body = { json: unknown } | { raw: string; contentType?: string }

interface Parts {
    /** Percent-encoded path parameter values. */
    path: Record<string, string>
    query: [string, string][]
    headers: Record<string, string>
    body?: Body
    intent: string
}

/** Bodies no JSON route should take: broken JSON, other media types, deep nesting, a body over any sane limit. */
const JUNK_BODIES: { raw: string; contentType?: string; why: string }[] = [
    { raw: '', contentType: 'application/json', why: 'empty JSON body' },
    { raw: '{', contentType: 'application/json', why: 'broken JSON' },
    { raw: '{"a":', contentType: 'application/json', why: 'broken JSON' },
    { raw: "{'a': 1}", contentType: 'application/json', why: 'broken JSON' },
    { raw: 'null', contentType: 'application/json', why: 'JSON null' },
    { raw: '"text"', contentType: 'application/json', why: 'JSON string' },
    { raw: '12', contentType: 'application/json', why: 'JSON number' },
    { raw: '[]', contentType: 'application/json', why: 'JSON array' },
    { raw: '{"__proto__": {"admin": true}}', contentType: 'application/json', why: 'prototype key' },
    { raw: `${'['.repeat(5000)}${']'.repeat(5000)}`, contentType: 'application/json', why: 'deep nesting' },
    { raw: `{"a": "${'x'.repeat(2_000_000)}"}`, contentType: 'application/json', why: 'a 2 MB body' },
    { raw: '{}', contentType: 'application/json; charset=utf-7', why: 'unsupported charset' },
    { raw: '{}', contentType: 'text/plain', why: 'text/plain body' },
    { raw: 'a=1', contentType: 'application/x-www-form-urlencoded', why: 'form body' },
    { raw: '{}', contentType: undefined, why: 'no content type' },
    { raw: '\u0000', contentType: 'application/json', why: 'NUL body' },
]

export class RequestArbitraries {
    constructor(private readonly doc: OpenApiDocument, private readonly prefs: RequestPreferences = {}) {}

    valid(op: DocumentedOperation): fc.Arbitrary<FuzzRequest> {
        return this.validParts(op).map((parts) => this.request(op, parts))
    }

    invalid(op: DocumentedOperation): fc.Arbitrary<FuzzRequest> {
        const resolve = (s: any) => this.doc.resolve(s)
        const mutations: fc.Arbitrary<(p: Parts) => Parts>[] = []
        for (const param of op.parameters) {
            if (param.in === 'cookie') continue
            const broken = invalidWireValues(param.schema, resolve)
            const label = `${param.in} ${param.name}`
            if (param.in === 'path') {
                mutations.push(broken.filter((b) => pathSafe(b.value)).map((b) => (p: Parts) => ({ ...p, path: { ...p.path, [param.name]: encode(b.value) }, intent: `${label}: ${b.why}` })))
                // Malformed percent-encoding reaches the router's decoder as written.
                if (this.prefs.malformedEscapes !== false) mutations.push(fc.constantFrom('%', '%zz', '%E0%A4%A', '%C0%AF', '%FF').map((raw) => (p: Parts) => ({ ...p, path: { ...p.path, [param.name]: raw }, intent: `${label}: malformed escape` })))
            } else if (param.in === 'query') {
                const others = (p: Parts) => p.query.filter(([k]) => k !== param.name)
                mutations.push(broken.map((b) => (p: Parts) => ({ ...p, query: [...others(p), [param.name, b.value]], intent: `${label}: ${b.why}` })))
                mutations.push(fc.array(hostileStrings(200), { minLength: 2, maxLength: 3 }).map((values) => (p: Parts) => ({
                    ...p, query: [...others(p), ...values.map((v): [string, string] => [param.name, v])], intent: `${label}: given ${values.length} times`,
                })))
                if (param.required) mutations.push(fc.constant((p: Parts) => ({ ...p, query: others(p), intent: `${label}: required, left out` })))
            } else {
                const key = param.name.toLowerCase()
                const without = (p: Parts) => Object.fromEntries(Object.entries(p.headers).filter(([k]) => k !== key))
                mutations.push(broken.filter((b) => headerSafe(b.value)).map((b) => (p: Parts) => ({ ...p, headers: { ...without(p), [key]: b.value }, intent: `${label}: ${b.why}` })))
                if (param.required) mutations.push(fc.constant((p: Parts) => ({ ...p, headers: without(p), intent: `${label}: required, left out` })))
            }
        }
        const unknownKey = fc.oneof(fc.constantFrom('__proto__', 'constructor', '__proto__[x]', 'a[b][c]', 'toString'), hostileStrings(100))
        mutations.push(fc.array(fc.tuple(unknownKey, hostileStrings(100)), { minLength: 1, maxLength: 3 }).map((extra) => (p: Parts) => ({
            ...p, query: [...p.query, ...extra], intent: 'unknown query keys',
        })))
        const given = Object.keys(this.prefs.headers ?? {}).map((k) => k.toLowerCase())
        if (op.secured && given.length > 0) {
            const withoutGiven = (p: Parts) => Object.fromEntries(Object.entries(p.headers).filter(([k]) => !given.includes(k)))
            mutations.push(fc.constant((p: Parts) => ({ ...p, headers: withoutGiven(p), intent: 'credentials left out' })))
            mutations.push(fc.constantFrom('Bearer x', 'Bearer ', 'Basic Og==', 'x').map((value) => (p: Parts) => ({
                ...p, headers: { ...withoutGiven(p), authorization: value }, intent: 'wrong credentials',
            })))
        }
        if (op.body) {
            const broken = invalidValues(op.body.schema, resolve)
            if (broken) mutations.push(broken.map((b: Broken) => (p: Parts) => ({ ...p, body: { json: b.value }, intent: `body ${b.why}` })))
            mutations.push(fc.constantFrom(...JUNK_BODIES).map((junk) => (p: Parts) => ({ ...p, body: { raw: junk.raw, contentType: junk.contentType }, intent: `body: ${junk.why}` })))
            if (op.body.required) mutations.push(fc.constant((p: Parts) => ({ ...p, body: undefined, intent: 'body: required, left out' })))
        }
        return fc.tuple(this.validParts(op), fc.oneof(...mutations)).map(([parts, mutate]) => this.request(op, mutate(parts)))
    }

    private validParts(op: DocumentedOperation): fc.Arbitrary<Parts> {
        const byLocation = (where: Parameter['in']) => op.parameters.filter((p) => p.in === where)
        const path = fc.record(Object.fromEntries(byLocation('path').map((p) => [p.name, this.wireValue(p).filter((v) => pathSafe(v[0] ?? '')).map((v) => encode(v[0]))])))
        const query = fc.tuple(...byLocation('query').map((p) => {
            const pairs = this.wireValue(p).map((values) => values.map((v): [string, string] => [p.name, v]))
            return p.required ? pairs : fc.option(pairs, { nil: [] })
        })).map((lists) => lists.flat())
        const given = Object.fromEntries(Object.entries(this.prefs.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]))
        const headers = fc.tuple(...byLocation('header').filter((p) => !(p.name.toLowerCase() in given)).map((p) => {
            const value = this.wireValue(p).map((v) => v.join(',')).filter(headerSafe).map((v): [string, string] => [p.name.toLowerCase(), v])
            return p.required ? value.map((v) => [v]) : fc.option(value.map((v) => [v]), { nil: [] })
        })).map((pairs) => ({ ...Object.fromEntries(pairs.flat()), ...given }))
        const body: fc.Arbitrary<Body | undefined> = op.body ? this.validBody(op.body.schema, op.body.required) : fc.constant(undefined)
        return fc.record({ path, query, headers, body, intent: fc.constant('valid') })
    }

    private validBody(schema: unknown, required: boolean): fc.Arbitrary<Body | undefined> {
        const resolve = (s: any) => this.doc.resolve(s)
        const preferred = this.prefs.values ?? {}
        const value = validValues(schema as any, resolve).map((json): Body => {
            // Top-level properties that have preferred values (e.g. real addresses) take one now and then.
            if (json && typeof json === 'object' && !Array.isArray(json)) {
                const o = { ...(json as Record<string, unknown>) }
                for (const [k, list] of Object.entries(preferred)) {
                    if (typeof o[k] === 'string' && list.length > 0) o[k] = list[o[k].length % list.length]
                }
                return { json: o }
            }
            return { json }
        })
        return required ? value : fc.option(value, { nil: undefined })
    }

    /** A valid parameter value as the strings it is sent as (an array parameter: several). */
    private wireValue(p: Parameter): fc.Arbitrary<string[]> {
        const generated = validValues(p.schema, (s) => this.doc.resolve(s)).map((v) => (Array.isArray(v) ? v : [v]).map(wireString))
        const preferred = this.prefs.values?.[p.name]
        if (!preferred || preferred.length === 0) return generated
        return fc.oneof({ arbitrary: fc.constantFrom(...preferred).map((v) => [v]), weight: 3 }, { arbitrary: generated, weight: 1 })
    }

    private request(op: DocumentedOperation, parts: Parts): FuzzRequest {
        const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => parts.path[name])
        const query = parts.query.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&')
        const headers = { ...parts.headers }
        let body: string | undefined
        if (parts.body && 'json' in parts.body) {
            body = JSON.stringify(parts.body.json)
            headers['content-type'] = 'application/json'
        } else if (parts.body) {
            body = parts.body.raw
            if (parts.body.contentType) headers['content-type'] = parts.body.contentType
        }
        return { method: op.method, url: query ? `${path}?${query}` : path, headers, body, intent: parts.intent }
    }
}

function wireString(v: unknown): string {
    return typeof v === 'string' ? v : v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v)
}

/** Percent-encoding of any string: a lone surrogate is sent as U+FFFD, as it has no UTF-8 form. */
function encode(s: string): string {
    return encodeURIComponent(s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'))
}

/** A path segment that still addresses the operation: URL parsing drops `.` and `..` segments, and an empty one is another path. */
function pathSafe(s: string): boolean {
    return s !== '' && !/^(\.|%2e){1,2}$/i.test(s)
}

/** What fetch can send as a header value: visible ASCII and inner spaces. */
function headerSafe(s: string): boolean {
    return /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(s)
}
