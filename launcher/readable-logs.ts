import { createInterface } from 'readline'
import { Readable } from 'stream'

/** What the levels' numbers (pino's) read as, padded to one width. */
const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO ', 40: 'WARN ', 50: 'ERROR', 60: 'FATAL' }
/** ANSI colours per level, as Subsquid's pretty format has them. */
const LEVEL_COLOURS: Record<number, number> = { 10: 35, 20: 32, 30: 36, 40: 33, 50: 31, 60: 31 }
/** Shown in the head of a line (or nowhere: pid and the ISO time say nothing on one machine's terminal). */
const HEAD_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'service', 'component', 'msg'])

/**
 * Whether `npm start` prints readable lines: LOG_FORMAT when set, else readable on a terminal and
 * JSON otherwise (a file, a pipe, CI), where a machine reads them.
 */
export function readableLogs(format: 'json' | 'pretty' | undefined, out: { isTTY?: boolean }): boolean {
    return format ? format === 'pretty' : out.isTTY === true
}

/**
 * One JSON log line as a person reads it: local time, level, service/component, message, then the
 * other fields as key=value (text bare unless it has spaces or quotes; the rest as JSON), and an
 * error's stack indented below. A line that is not one of our JSON lines (a Node warning, a crash) comes back as it is.
 */
export function readableLine(line: string, colours = false): string {
    let entry: Record<string, unknown>
    try {
        entry = JSON.parse(line)
    } catch {
        return line
    }
    if (!entry || typeof entry !== 'object' || typeof entry.level !== 'number') return line
    const paint = (code: number | string, text: string) => (colours ? `\x1b[${code}m${text}\x1b[0m` : text)
    const level = entry.level as number
    const service = typeof entry.service === 'string' ? entry.service : undefined
    // A service's own logger is named after it: `indexer`, not `indexer/indexer`.
    const component = typeof entry.component === 'string' && entry.component !== service ? entry.component : undefined
    const source = [service, component].filter(Boolean).join('/')
    const fields: string[] = []
    let stack: string | undefined
    for (const [key, value] of Object.entries(entry)) {
        if (HEAD_FIELDS.has(key)) continue
        if (key === 'err' && value && typeof value === 'object' && typeof (value as { stack?: unknown }).stack === 'string') {
            // The stack's first line has the type and message; what else the error carries (code, ...) stays a field.
            const { stack: errStack, type: _type, message: _message, ...rest } = value as Record<string, unknown>
            stack = errStack as string
            for (const [name, detail] of Object.entries(rest)) fields.push(`err.${name}=${fieldValue(detail)}`)
            continue
        }
        fields.push(`${key}=${fieldValue(value)}`)
    }
    const head = [
        clock(entry.time),
        paint(`1;${LEVEL_COLOURS[level] ?? 0}`, LEVEL_NAMES[level] ?? String(level).padEnd(5)),
        source && paint('1;34', source),
        typeof entry.msg === 'string' ? entry.msg : undefined,
    ].filter(Boolean).join(' ') + (fields.length ? `  ${paint(2, fields.join(' '))}` : '')
    return stack ? `${head}\n${paint(2, stack.replace(/^/gm, '    '))}` : head
}

/** Prints a child's output line by line as readableLine makes it, until the stream ends. */
export function relayReadable(from: Readable, to: NodeJS.WritableStream, colours: boolean): void {
    createInterface({ input: from, crlfDelay: Infinity }).on('line', (line) => to.write(`${readableLine(line, colours)}\n`))
}

function fieldValue(value: unknown): string {
    if (typeof value === 'string') return value !== '' && !/[\s"=]/.test(value) ? value : JSON.stringify(value)
    return JSON.stringify(value) ?? String(value)
}

/** HH:MM:SS.mmm in local time, or the value as it came when it is not a time. */
function clock(time: unknown): string {
    const date = new Date(typeof time === 'string' || typeof time === 'number' ? time : NaN)
    if (Number.isNaN(date.getTime())) return String(time ?? '')
    const pad = (n: number, width = 2) => String(n).padStart(width, '0')
    return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`
}
