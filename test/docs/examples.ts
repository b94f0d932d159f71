/**
 * The request/answer examples of a markdown document, and the comparison of an answer's shape with
 * the documented one (test/docs/examples.test.ts).
 *
 * An example is a fenced ```http block, followed (only blank lines between) by a ```json block:
 *
 *     ```http
 *     POST /api/wallet/register_random
 *     x-user-pwd: correct-horse-battery-staple
 *
 *     { "user_id": "alice" }
 *     ```
 *     ```json
 *     { "success": true, "result": { "address": "0x…" } }
 *     ```
 *
 * The first line is the method and the path with its query; header lines follow until a blank
 * line; the rest is the JSON body, if any. `{{name}}` in the request stands for a value the test
 * learnt earlier in the run (an address created by an earlier example).
 */

export interface Example {
    /** 1-based line of the ```http fence, for messages. */
    line: number
    request: string
    answer: unknown
    /** Where the answer's JSON sits in the file, so a recording run can replace it. */
    answerStart: number
    answerEnd: number
}

export interface Request {
    method: string
    path: string
    headers: Record<string, string>
    body?: unknown
}

const FENCE = /^```(\w*)\s*$/

export function parseExamples(markdown: string): Example[] {
    const lines = markdown.split('\n')
    const blocks: { lang: string; start: number; end: number }[] = []
    for (let i = 0; i < lines.length; i++) {
        const open = FENCE.exec(lines[i])
        if (!open) continue
        const close = lines.findIndex((l, j) => j > i && l.startsWith('```'))
        if (close < 0) throw new Error(`line ${i + 1}: an unclosed code block`)
        blocks.push({ lang: open[1], start: i, end: close })
        i = close
    }
    const examples: Example[] = []
    blocks.forEach((block, k) => {
        if (block.lang !== 'http') return
        const next = blocks[k + 1]
        const between = next ? lines.slice(block.end + 1, next.start) : []
        if (!next || next.lang !== 'json' || between.some((l) => l.trim() !== '')) {
            throw new Error(`line ${block.start + 1}: an http example must be followed by its json answer`)
        }
        const text = (b: { start: number; end: number }) => lines.slice(b.start + 1, b.end).join('\n')
        let answer: unknown
        try {
            answer = JSON.parse(text(next))
        } catch (err) {
            throw new Error(`line ${next.start + 1}: the answer is not JSON: ${(err as Error).message}`, { cause: err })
        }
        examples.push({ line: block.start + 1, request: text(block), answer, answerStart: next.start + 1, answerEnd: next.end })
    })
    return examples
}

/** The request of an example, with its `{{name}}` placeholders replaced. */
export function parseRequest(text: string, values: Record<string, string>): Request {
    const filled = text.replace(/\{\{(\w+)\}\}/g, (_m, name: string) => {
        if (!(name in values)) throw new Error(`{{${name}}} is not known at this point of the run`)
        return values[name]
    })
    const [head, ...rest] = filled.split('\n')
    const start = /^(GET|POST|PUT|PATCH|DELETE) (\/\S*)$/.exec(head.trim())
    if (!start) throw new Error(`"${head}" is not METHOD /path`)
    const headers: Record<string, string> = {}
    let i = 0
    for (; i < rest.length && rest[i].trim() !== ''; i++) {
        const header = /^([A-Za-z0-9-]+):\s*(.*)$/.exec(rest[i])
        if (!header) throw new Error(`"${rest[i]}" is not a header line`)
        headers[header[1].toLowerCase()] = header[2]
    }
    const body = rest.slice(i).join('\n').trim()
    return { method: start[1], path: start[2], headers, body: body ? JSON.parse(body) : undefined }
}

/**
 * Where an answer's shape differs from the documented one: the same keys, recursively, and the same
 * JSON type at each (string, number, boolean, null, object, array). Arrays are compared by their
 * first elements, and only when both have one: a list may be empty in one run and not in another.
 */
export function shapeDifferences(actual: unknown, documented: unknown, at = '$'): string[] {
    const type = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v)
    if (type(actual) !== type(documented)) return [`${at}: ${type(actual)}, documented as ${type(documented)}`]
    if (Array.isArray(actual) && Array.isArray(documented)) {
        return actual.length && documented.length ? shapeDifferences(actual[0], documented[0], `${at}[0]`) : []
    }
    if (type(actual) !== 'object') return []
    const a = actual as Record<string, unknown>
    const d = documented as Record<string, unknown>
    return [
        ...Object.keys(a).filter((k) => !(k in d)).map((k) => `${at}.${k}: not documented`),
        ...Object.keys(d).filter((k) => !(k in a)).map((k) => `${at}.${k}: documented, not answered`),
        ...Object.keys(a).filter((k) => k in d).flatMap((k) => shapeDifferences(a[k], d[k], `${at}.${k}`)),
    ]
}
