import { z } from 'zod'
import { badRequest } from './errors'

/**
 * Parses one part of a request with its zod schema; the first problem becomes a 400 that names the
 * field (`email`, `body`, `query.days`), so a client can point at what to fix.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, part: 'body' | 'query' | 'params'): z.output<S> {
    const result = schema.safeParse(input, { reportInput: true })
    if (result.success) return result.data
    const issue = result.error.issues[0]
    const field = issue.path.length > 0 ? issue.path.map(String).join('.') : part
    const missing = issue.code === 'invalid_type' && issue.input === undefined
    throw badRequest(missing ? `${field}: is required` : `${field}: ${issue.message}`, field)
}

/** Postgres text cannot hold NUL; refusing it here keeps such input a 400 instead of a database error. */
const noNul = (s: string) => !s.includes('\u0000')

/** Free text of a form field: trimmed, non-empty, bounded, storable. */
export function text(max: number, min = 1) {
    return z.string()
        .trim()
        .min(min, min === 1 ? 'must not be empty' : `must be at least ${min} characters`)
        .max(max, `must be at most ${max} characters`)
        .refine(noNul, 'must not contain NUL characters')
}

/** An email address in its one stored form: trimmed and lower-cased. */
export const email = z.string()
    .trim()
    .toLowerCase()
    .max(254, 'must be at most 254 characters')
    .pipe(z.email('must be a valid email address'))

export const PASSWORD_POLICY = 'must be 8 to 128 characters long'

/** Length is the policy (NIST 800-63B): no composition rules, which push users to predictable patterns. */
export const password = z.string()
    .min(8, PASSWORD_POLICY)
    .max(128, PASSWORD_POLICY)
    .refine(noNul, 'must not contain NUL characters')
    .refine((p) => p.trim().length > 0, 'must not be only spaces')

/** An address of the chain in its canonical (lowercase) form. */
export const address = z.string()
    .regex(/^0x[0-9a-fA-F]{40}$/, 'must be 0x followed by 40 hexadecimal digits')
    .transform((a) => a.toLowerCase())

/**
 * A whole number in a query string, from `min` to `max`; the length of the text is bounded before it is
 * converted, so no input reaches Number() as a huge string.
 */
export function wholeNumber(min: number, max: number) {
    const range = `must be from ${min} to ${max}`
    return z.string()
        .regex(new RegExp(`^\\d{1,${String(max).length + 1}}$`), `must be a whole number from ${min} to ${max}`)
        .transform(Number)
        .pipe(z.number().int().min(min, range).max(max, range))
}
