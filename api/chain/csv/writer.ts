import { Response } from 'express'

/**
 * The CSV writer every export shares (the address and token-holder exports, the advanced filter's):
 * column definitions, and rows pulled page by page from a keyset source, written to the response as
 * each page arrives. Nothing is built in memory beyond one page; a page is written only once the
 * previous one has left (res.write's return value and 'drain'), and the walk stops when the client
 * goes away. docs/chain-api.md#csv-export.
 */

/** One column: its header, and its field in a row. A null or undefined field is written empty, as Blockscout writes nil. */
export interface CsvColumn<R> {
    header: string
    value(row: R): string | number | bigint | null | undefined
}

/** RFC 4180: a field holding a comma, a quote or a line break is quoted, its quotes doubled. */
export function csvField(value: string | number | bigint | null | undefined): string {
    if (value === null || value === undefined) return ''
    const text = String(value)
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

/** One record, ended with CRLF as RFC 4180 (and Blockscout's NimbleCSV) ends them. */
export function csvLine(fields: readonly (string | number | bigint | null | undefined)[]): string {
    return `${fields.map(csvField).join(',')}\r\n`
}

/**
 * The pages of a keyset list: `read` one page from a cursor, `next` the cursor after a row. The walk
 * ends with a page shorter than `full` rows, or at the first row for which `past` holds (a list
 * read newest first, past the start of the export's period): the rows from there on are dropped.
 */
export async function* keysetPages<R, C>(options: {
    first: C
    read: (cursor: C) => Promise<R[]>
    next: (last: R) => C
    full: number
    past?: (row: R) => boolean
}): AsyncGenerator<R[]> {
    let cursor = options.first
    for (;;) {
        const rows = await options.read(cursor)
        const end = options.past ? rows.findIndex(options.past) : -1
        const kept = end === -1 ? rows : rows.slice(0, end)
        if (kept.length > 0) yield kept
        if (end !== -1 || rows.length < options.full) return
        cursor = options.next(rows[rows.length - 1])
    }
}

/** The pages of `pages`, each turned into the rows the file shows by `f` (one query per page at most: what they refer to). */
export async function* mapPages<A, B>(pages: AsyncIterable<A[]>, f: (rows: A[]) => Promise<B[]>): AsyncGenerator<B[]> {
    for await (const rows of pages) yield await f(rows)
}

/** What an export is made of, before its limits: its columns and its pages of rows. */
export interface RowSource<R> {
    columns: readonly CsvColumn<R>[]
    pages: AsyncIterable<R[]>
}

export interface CsvExport<R> {
    columns: readonly CsvColumn<R>[]
    /** Pages of rows in the file's order; each page is turned into lines and written before the next is read. */
    pages: AsyncIterable<R[]>
    /** Rows written at most; the file ends there. */
    maxRows: number
    /** The name the file is saved under (Content-Disposition). */
    fileName: string
}

export interface CsvOutcome {
    rows: number
    /** The client went away before the end: nothing more was read. */
    aborted: boolean
    /** A failure after the answer had started, which cut it short. */
    error?: unknown
}

/**
 * Streams an export as the answer. The first page is read before anything is sent, so a query that
 * fails at once is still answered with its error status; a failure after that can only cut the
 * chunked answer short (the connection is destroyed, so the client sees an incomplete download, not a
 * complete-looking file).
 */
export async function streamCsv<R>(res: Response, csv: CsvExport<R>): Promise<CsvOutcome> {
    let closed = false
    const onClose = () => {
        closed = true
    }
    res.once('close', onClose)
    const iterator = csv.pages[Symbol.asyncIterator]()
    let rows = 0
    try {
        let page = await iterator.next()
        res.status(200)
        res.set({
            'Content-Type': 'text/csv; charset=utf-8',
            'Content-Disposition': `attachment; filename="${csv.fileName.replace(/[^A-Za-z0-9._-]/g, '_')}"`,
            'Cache-Control': 'no-store',
        })
        if (!(await write(res, csvLine(csv.columns.map((c) => c.header))))) return { rows, aborted: true }
        while (!page.done && rows < csv.maxRows && !closed) {
            const shown = page.value.slice(0, csv.maxRows - rows)
            let chunk = ''
            for (const row of shown) chunk += csvLine(csv.columns.map((c) => c.value(row)))
            rows += shown.length
            if (!(await write(res, chunk))) break
            if (rows >= csv.maxRows) break
            page = await iterator.next()
        }
        if (closed || res.destroyed) return { rows, aborted: true }
        res.end()
        return { rows, aborted: false }
    } catch (err) {
        if (!res.headersSent) throw err
        // Headers and part of the file are out: the only honest signal left is an unfinished answer.
        res.destroy()
        return { rows, aborted: true, error: err }
    } finally {
        res.off('close', onClose)
        // Ends the source's walk (a generator's finally) when the loop stopped early.
        await iterator.return?.()
    }
}

/** Writes a chunk; when the socket's buffer is full, waits for it to drain. False once the client is gone. */
async function write(res: Response, chunk: string): Promise<boolean> {
    if (res.destroyed || res.writableEnded) return false
    if (res.write(chunk)) return true
    return new Promise<boolean>((resolve) => {
        const done = (drained: boolean) => {
            res.off('drain', onDrain)
            res.off('close', onClose)
            resolve(drained)
        }
        const onDrain = () => done(true)
        const onClose = () => done(false)
        res.once('drain', onDrain)
        res.once('close', onClose)
    })
}
