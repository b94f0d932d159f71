import fc from 'fast-check'
import { JsonSchema } from './document'

/** fast-check arbitraries of JSON values that satisfy a JSON Schema (docs/testing.md#fuzzing). */

export type Resolve = (schema: JsonSchema) => JsonSchema

/** Below this depth, optional properties are left out and arrays keep their minimum, so recursive schemas end. */
const MAX_DEPTH = 4
/** Array items beyond minItems, at most. */
const EXTRA_ITEMS = 4

export function validValues(schema: JsonSchema, resolve: Resolve, depth = 0): fc.Arbitrary<unknown> {
    const s = resolve(schema)
    if (s === true) return anyJson()
    if (s === false) throw new Error('no value satisfies the schema `false`')
    if ('const' in s) return fc.constant(s.const)
    if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum)
    if (Array.isArray(s.allOf)) return validValues(mergeAllOf(s, resolve), resolve, depth)
    const alternatives = s.anyOf ?? s.oneOf
    if (Array.isArray(alternatives)) return fc.oneof(...alternatives.map((a: JsonSchema) => validValues(a, resolve, depth)))
    const types = typesOf(s)
    if (types.length === 0) return anyJson()
    return fc.oneof(...types.map((type) => ofType(type, s, resolve, depth)))
}

/** The types a schema names (`type` as a string or a list), or implies (properties: object, items: array). */
export function typesOf(s: { [keyword: string]: any }): string[] {
    if (Array.isArray(s.type)) return s.type
    if (typeof s.type === 'string') return [s.type]
    if (s.properties || s.additionalProperties !== undefined || s.required) return ['object']
    if (s.items || s.prefixItems) return ['array']
    if (s.pattern !== undefined || s.format !== undefined || s.minLength !== undefined || s.maxLength !== undefined) return ['string']
    if (s.minimum !== undefined || s.maximum !== undefined) return ['number']
    return []
}

/** allOf as one schema: properties and required lists joined, other keywords of the later parts winning. */
export function mergeAllOf(s: { [keyword: string]: any }, resolve: Resolve): { [keyword: string]: any } {
    const { allOf, ...rest } = s
    const merged: { [keyword: string]: any } = { ...rest, properties: { ...rest.properties }, required: [...(rest.required ?? [])] }
    for (const part of allOf as JsonSchema[]) {
        const p = resolve(part)
        if (typeof p !== 'object') continue
        const flat = Array.isArray(p.allOf) ? mergeAllOf(p, resolve) : p
        Object.assign(merged, { ...flat, properties: { ...merged.properties, ...flat.properties }, required: [...merged.required, ...(flat.required ?? [])] })
    }
    if (Object.keys(merged.properties).length === 0) delete merged.properties
    if (merged.required.length === 0) delete merged.required
    return merged
}

function ofType(type: string, s: { [keyword: string]: any }, resolve: Resolve, depth: number): fc.Arbitrary<unknown> {
    switch (type) {
        case 'null': return fc.constant(null)
        case 'boolean': return fc.boolean()
        case 'integer': return integers(s)
        case 'number': return numbers(s)
        case 'string': return strings(s)
        case 'array': return arrays(s, resolve, depth)
        case 'object': return objects(s, resolve, depth)
        default: throw new Error(`unknown JSON Schema type ${type}`)
    }
}

function integers(s: { [keyword: string]: any }): fc.Arbitrary<number> {
    const min = Math.max(Number.MIN_SAFE_INTEGER, lowerBound(s, 1))
    const max = Math.min(Number.MAX_SAFE_INTEGER, upperBound(s, 1))
    if (min > max) throw new Error(`no integer in [${min}, ${max}]`)
    const step = typeof s.multipleOf === 'number' && Number.isInteger(s.multipleOf) ? s.multipleOf : 1
    if (step === 1) return fc.integer({ min, max })
    return fc.integer({ min: Math.ceil(min / step), max: Math.floor(max / step) }).map((n) => n * step)
}

function numbers(s: { [keyword: string]: any }): fc.Arbitrary<number> {
    return fc.double({
        min: typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum : -1e15,
        max: typeof s.maximum === 'number' ? s.maximum : typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum : 1e15,
        minExcluded: typeof s.exclusiveMinimum === 'number',
        maxExcluded: typeof s.exclusiveMaximum === 'number',
        noNaN: true,
        noDefaultInfinity: true,
    }).map((n) => (Object.is(n, -0) ? 0 : n))
}

/** The least integer a schema allows (`step` 1), from minimum / exclusiveMinimum. */
export function lowerBound(s: { [keyword: string]: any }, step: number): number {
    if (typeof s.exclusiveMinimum === 'number') return Math.floor(s.exclusiveMinimum) + step
    if (typeof s.minimum === 'number') return Math.ceil(s.minimum)
    return -Infinity
}

export function upperBound(s: { [keyword: string]: any }, step: number): number {
    if (typeof s.exclusiveMaximum === 'number') return Math.ceil(s.exclusiveMaximum) - step
    if (typeof s.maximum === 'number') return Math.floor(s.maximum)
    return Infinity
}

const FORMATS: Record<string, () => fc.Arbitrary<string>> = {
    'date-time': () => dates().map((d) => d.toISOString()),
    date: () => dates().map((d) => d.toISOString().slice(0, 10)),
    // Plain addresses: fc.emailAddress() also writes forms (quoted parts, IP hosts) that servers rightly refuse.
    email: () => fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,15}@[a-z0-9]{1,12}\.[a-z]{2,6}$/),
    uuid: () => fc.uuid(),
    uri: () => fc.webUrl(),
    url: () => fc.webUrl(),
}

function dates(): fc.Arbitrary<Date> {
    return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true })
}

function strings(s: { [keyword: string]: any }): fc.Arbitrary<string> {
    const minLength = s.minLength ?? 0
    const maxLength = s.maxLength
    const fits = (v: string) => [...v].length >= minLength && (maxLength === undefined || [...v].length <= maxLength)
    if (typeof s.pattern === 'string') {
        return fc.stringMatching(patternOf(s.pattern), { maxLength: maxLength ?? 300 }).filter(fits)
    }
    const format = FORMATS[s.format]
    if (format) return format().filter(fits)
    // Mostly printable ASCII, sometimes any Unicode: both are valid strings.
    const constraints = { minLength, maxLength: maxLength ?? Math.max(minLength + 40, 40) }
    return fc.oneof(
        { arbitrary: fc.string(constraints), weight: 4 },
        { arbitrary: fc.string({ ...constraints, unit: 'grapheme' }), weight: 1 },
    ).filter(fits)
}

/** A schema's pattern as JSON Schema reads it (ECMA-262, Unicode mode as ajv does), or without the flag where that refuses it. */
export function patternOf(source: string): RegExp {
    try {
        return new RegExp(source, 'u')
    } catch {
        return new RegExp(source)
    }
}

function arrays(s: { [keyword: string]: any }, resolve: Resolve, depth: number): fc.Arbitrary<unknown[]> {
    const minLength = s.minItems ?? 0
    const maxLength = depth >= MAX_DEPTH ? minLength : Math.min(s.maxItems ?? Infinity, minLength + EXTRA_ITEMS)
    const prefix: JsonSchema[] = s.prefixItems ?? []
    const rest = s.items === undefined ? true : s.items
    if (prefix.length > 0) {
        const head = fc.tuple(...prefix.map((p) => validValues(p, resolve, depth + 1)))
        if (rest === false) return head
        return fc.tuple(head, fc.array(validValues(rest, resolve, depth + 1), { maxLength: Math.max(0, maxLength - prefix.length) })).map(([h, t]) => [...h, ...t])
    }
    const item = validValues(rest, resolve, depth + 1)
    if (s.uniqueItems) return fc.uniqueArray(item, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
    return fc.array(item, { minLength, maxLength })
}

function objects(s: { [keyword: string]: any }, resolve: Resolve, depth: number): fc.Arbitrary<Record<string, unknown>> {
    const properties: Record<string, JsonSchema> = s.properties ?? {}
    const required: string[] = (s.required ?? []).filter((k: string) => k in properties)
    const names = depth >= MAX_DEPTH ? required : Object.keys(properties)
    const shape = Object.fromEntries(names.map((name) => [name, validValues(properties[name], resolve, depth + 1)]))
    const known = fc.record(shape, { requiredKeys: required })
    const extra = s.additionalProperties
    // A record (additionalProperties with a schema of its own): a few entries besides the named ones.
    if (extra && typeof extra === 'object' && Object.keys(extra).length > 0 && depth < MAX_DEPTH) {
        const keys = fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !(k in properties))
        return fc.tuple(known, fc.dictionary(keys, validValues(extra, resolve, depth + 1), { maxKeys: 3 })).map(([k, e]) => ({ ...e, ...k }))
    }
    return known
}

function anyJson(): fc.Arbitrary<unknown> {
    return fc.jsonValue({ maxDepth: 2 })
}
