import fc from 'fast-check'
import { JsonSchema } from './document'
import { lowerBound, mergeAllOf, patternOf, Resolve, typesOf, upperBound, validValues } from './valid-values'

/**
 * fast-check arbitraries of values that break a JSON Schema (a wrong type, out of range, a broken
 * pattern, a dropped required property) or are hostile to a server whatever the schema says (NUL,
 * lone surrogates, very long strings). Each value says why it was made. docs/testing.md#fuzzing
 */

export interface Broken<T = unknown> {
    value: T
    /** Why the value should be refused, e.g. `amount: above maximum`. */
    why: string
}

const MAX_DEPTH = 3

/** Strings that have broken servers: control characters, lone surrogates, paths, quotes, very long text. */
export function hostileStrings(longest = 6_000): fc.Arbitrary<string> {
    return fc.oneof(
        fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '%', '%00', '\\', '../../etc/passwd', "' OR '1'='1", '"', '<script>', '\u202e',
            '\ud835\udfd8', '\ud800', '\udfff', '\uffff', 'e\u0301', '\r\n', 'null', 'undefined', '__proto__', 'constructor', '{}', '[]',
            '-0', '0x', 'NaN', '1e309', '${x}'),
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        fc.integer({ min: longest / 2, max: longest }).map((n) => 'x'.repeat(n)),
    )
}

/** Values that break the schema, or are hostile to its type. Undefined when nothing can break it (`true`). */
export function invalidValues(schema: JsonSchema, resolve: Resolve, depth = 0): fc.Arbitrary<Broken> | undefined {
    const s = resolve(schema)
    if (typeof s !== 'object') return undefined
    if (Array.isArray(s.allOf)) return invalidValues(mergeAllOf(s, resolve), resolve, depth)
    const choices: fc.Arbitrary<Broken>[] = []
    const types = allowedTypes(s, resolve)
    const wrong = WRONG_TYPES.filter((v) => types !== undefined && !types.some((t) => hasType(v, t)))
    if (wrong.length > 0) choices.push(fc.constantFrom(...wrong).map((value) => ({ value, why: 'wrong type' })))
    const listed: unknown[] | undefined = 'const' in s ? [s.const] : s.enum
    if (listed) {
        const other = fc.oneof(hostileStrings(200), fc.constantFrom(...listed.filter((v) => typeof v === 'string').map(flipCase), 'other'))
        choices.push(other.filter((v) => !listed.includes(v)).map((value) => ({ value, why: 'not one of the listed values' })))
    } else if (!s.anyOf && !s.oneOf) {
        for (const type of types ?? []) choices.push(...brokenOfType(type, s, resolve, depth))
    }
    return choices.length > 0 ? fc.oneof(...choices) : undefined
}

/** Strings for a path, query or header parameter that break its schema or are hostile anyway. */
export function invalidWireValues(schema: JsonSchema, resolve: Resolve): fc.Arbitrary<Broken<string>> {
    const fromSchema = invalidValues(schema, resolve)
    const scalar = (fromSchema ?? fc.constant({ value: '', why: 'empty' }))
        .filter((b) => b.value === null || typeof b.value !== 'object')
        .map((b) => ({ value: String(b.value), why: b.why }))
    const s = resolve(schema)
    const numeric = typeof s === 'object' && (typesOf(s).includes('integer') || typesOf(s).includes('number'))
    return fc.oneof(
        { arbitrary: scalar, weight: 3 },
        { arbitrary: numeric ? fc.constantFrom('abc', '1.5', '1e3', '0x1f', ' 1', '-1', 'Infinity', '1,2', '9'.repeat(400)).map((value) => ({ value, why: 'not a number' })) : scalar, weight: 1 },
        { arbitrary: hostileStrings().map((value) => ({ value, why: 'hostile string' })), weight: 2 },
    )
}

const WRONG_TYPES: unknown[] = [null, true, 0, -1, 1.5, 1e308, '', 'text', '\u0000', [], ['x'], {}, { x: 1 }]

function hasType(value: unknown, type: string): boolean {
    switch (type) {
        case 'null': return value === null
        case 'boolean': return typeof value === 'boolean'
        case 'integer': return Number.isInteger(value)
        case 'number': return typeof value === 'number'
        case 'string': return typeof value === 'string'
        case 'array': return Array.isArray(value)
        case 'object': return value !== null && typeof value === 'object' && !Array.isArray(value)
        default: return false
    }
}

/** Every type a value may have, through anyOf/oneOf; undefined when any type may do. */
function allowedTypes(s: { [keyword: string]: any }, resolve: Resolve): string[] | undefined {
    const alternatives = s.anyOf ?? s.oneOf
    if (Array.isArray(alternatives)) {
        const all: string[] = []
        for (const a of alternatives) {
            const r = resolve(a)
            const t = typeof r === 'object' ? (Array.isArray(r.allOf) ? allowedTypes(mergeAllOf(r, resolve), resolve) : allowedTypes(r, resolve)) : undefined
            if (!t) return undefined
            all.push(...t)
        }
        return all
    }
    const types = typesOf(s)
    if ('const' in s || s.enum) return [...new Set([...types, ...[...(s.enum ?? []), s.const].map(typeName)])]
    return types.length > 0 ? types : undefined
}

function typeName(v: unknown): string {
    return v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v
}

function flipCase(v: string): string {
    const flipped = v.toUpperCase() === v ? v.toLowerCase() : v.toUpperCase()
    return flipped === v ? `${v}_` : flipped
}

function brokenOfType(type: string, s: { [keyword: string]: any }, resolve: Resolve, depth: number): fc.Arbitrary<Broken>[] {
    const why = (reason: string) => (value: unknown) => ({ value, why: reason })
    switch (type) {
        case 'integer':
        case 'number': {
            const found: fc.Arbitrary<Broken>[] = []
            const min = lowerBound(s, type === 'integer' ? 1 : 0)
            const max = upperBound(s, type === 'integer' ? 1 : 0)
            if (Number.isFinite(min)) found.push(fc.constantFrom(min - 1, min - 1e6, -1e308).filter((v) => v < min).map(why('below minimum')))
            if (Number.isFinite(max)) found.push(fc.constantFrom(max + 1, max + 1e6, 1e308).filter((v) => v > max).map(why('above maximum')))
            if (type === 'integer') found.push(fc.constantFrom(0.5, 1.5, 2 ** 53 + 2, -(2 ** 53) - 2).map(why('not a safe integer')))
            return found
        }
        case 'string': {
            const found: fc.Arbitrary<Broken>[] = [hostileStrings().map(why('hostile string'))]
            if (typeof s.pattern === 'string') {
                const regex = patternOf(s.pattern)
                const near = validValues({ ...s, maxLength: undefined, minLength: undefined }, resolve).map(String)
                const broken = fc.oneof(hostileStrings(300), near.map((v) => `${v}!`), near.map((v) => ` ${v}`), near.map((v) => v.slice(1)), near.map((v) => v.toUpperCase()))
                found.push(broken.filter((v) => !regex.test(v)).map(why('breaks the pattern')))
            }
            if (typeof s.maxLength === 'number') found.push(fc.integer({ min: s.maxLength + 1, max: s.maxLength + 64 }).map((n) => '7'.repeat(n)).map(why('too long')))
            if (typeof s.minLength === 'number' && s.minLength > 0) found.push(fc.integer({ min: 0, max: s.minLength - 1 }).map((n) => '7'.repeat(n)).map(why('too short')))
            if (typeof s.format === 'string') found.push(fc.constantFrom(`not-a-${s.format}`, '2024-13-45T99:99:99Z', '@', 'http://').map(why(`not a ${s.format}`)))
            return found
        }
        case 'array': {
            const found: fc.Arbitrary<Broken>[] = []
            const item = s.items === undefined ? true : s.items
            if (typeof s.minItems === 'number' && s.minItems > 0) {
                found.push(validValues({ ...s, minItems: 0, maxItems: s.minItems - 1 }, resolve, depth).map(why('too few items')))
            }
            if (typeof s.maxItems === 'number' && item !== false) {
                found.push(validValues(item, resolve, depth + 1).map((v) => Array.from({ length: s.maxItems + 1 }, () => v)).map(why('too many items')))
            }
            const brokenItem = depth < MAX_DEPTH ? invalidValues(item, resolve, depth + 1) : undefined
            if (brokenItem) {
                const rest = validValues({ ...s, minItems: Math.max(0, (s.minItems ?? 0) - 1), maxItems: Math.max(0, (s.maxItems ?? 3) - 1) }, resolve, depth) as fc.Arbitrary<unknown[]>
                found.push(fc.tuple(rest, brokenItem).map(([items, b]) => ({ value: [b.value, ...items], why: `[0]: ${b.why}` })))
            }
            return found
        }
        case 'object': {
            const found: fc.Arbitrary<Broken>[] = []
            const properties: Record<string, JsonSchema> = s.properties ?? {}
            const required: string[] = (s.required ?? []).filter((k: string) => k in properties)
            const whole = validValues(s, resolve, depth) as fc.Arbitrary<Record<string, unknown>>
            if (required.length > 0) {
                found.push(fc.tuple(whole, fc.constantFrom(...required)).map(([o, key]) => {
                    const { [key]: _dropped, ...rest } = o
                    return { value: rest, why: `${key}: required, left out` }
                }))
            }
            if (depth < MAX_DEPTH) {
                for (const [key, schema] of Object.entries(properties)) {
                    const broken = invalidValues(schema, resolve, depth + 1)
                    if (broken) found.push(fc.tuple(whole, broken).map(([o, b]) => ({ value: { ...o, [key]: b.value }, why: `${key}: ${b.why}` })))
                }
            }
            const unknownKey = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', ''), fc.string({ minLength: 1, maxLength: 20 })).filter((k) => !(k in properties))
            // Own properties named __proto__ as JSON.parse makes them, so they reach the server as written.
            found.push(fc.tuple(whole, unknownKey, fc.jsonValue({ maxDepth: 1 })).map(([o, key, v]) => ({
                value: Object.defineProperty({ ...o }, key, { value: v, enumerable: true, configurable: true, writable: true }),
                why: s.additionalProperties === false ? `${key}: not allowed` : `${JSON.stringify(key)}: unknown property`,
            })))
            return found
        }
        default:
            return []
    }
}
