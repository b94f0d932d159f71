import { PoolClient } from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import { pipeline } from 'stream/promises'
import { Readable } from 'stream'
import { EntityManager, EntityTarget } from 'typeorm'

/**
 * Bulk writes through the entity manager's own connection, so they share the processor's
 * transaction (and its status row). COPY is several times faster than multi-row INSERT, which is
 * what decides the indexer's backfill speed.
 */

export interface TableShape {
    name: string
    /** json: a jsonb column, whose arrays are JSON (an empty one too), not Postgres array literals */
    columns: { property: string; column: string; bytea: boolean; json?: boolean }[]
}

/**
 * Bytes as 0x-prefixed hex, the way the node sends them. Rows keep them so, and COPY writes the
 * hex to bytea columns as is: decoding every input and output into a Buffer only for COPY to
 * encode it back was a large share of the indexer's CPU and garbage.
 */
export type HexBytes = string

const WHOLE_BYTES = /^0x(?:[0-9a-fA-F]{2})*$/

/**
 * `hex` as a row holds it: as sent when it is 0x and whole bytes of hex, otherwise the bytes
 * Buffer.from reads from it (up to the first bad digit), so that a malformed answer is stored as
 * before instead of failing the COPY.
 */
export function hexBytes(hex: string): HexBytes {
    return WHOLE_BYTES.test(hex) ? hex : '0x' + Buffer.from(hex.slice(2), 'hex').toString('hex')
}

const shapes = new WeakMap<object, TableShape>()

export function tableShape(em: EntityManager, entity: EntityTarget<unknown>): TableShape {
    let shape = shapes.get(entity as object)
    if (!shape) {
        const meta = em.connection.getMetadata(entity)
        shape = {
            name: meta.tableName,
            columns: meta.columns.map((c) => ({ property: c.propertyName, column: c.databaseName, bytea: c.type === 'bytea', json: c.type === 'jsonb' })),
        }
        shapes.set(entity as object, shape)
    }
    return shape
}

export async function connectionOf(em: EntityManager): Promise<PoolClient> {
    if (!em.queryRunner) throw new Error('bulk writes need a transactional entity manager')
    return (await em.queryRunner.connect()) as PoolClient
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`

/** One value in COPY's text format; a string in a bytea column is HexBytes. */
function copyValue(value: unknown, bytea: boolean, json = false): string {
    if (value === null || value === undefined) return '\\N'
    if (json && Array.isArray(value)) return escapeText(JSON.stringify(value))
    switch (typeof value) {
        case 'bigint':
        case 'number':
            return String(value)
        case 'boolean':
            return value ? 't' : 'f'
        case 'string':
            return bytea ? '\\\\x' + value.slice(2) : escapeText(value)
    }
    if (value instanceof Date) return value.toISOString()
    // Integer arrays (a frame's trace address) in Postgres's array literal.
    if (Array.isArray(value) && value.every((v) => typeof v === 'number')) return `{${value.join(',')}}`
    if (value instanceof Uint8Array) return '\\\\x' + Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')
    return escapeText(JSON.stringify(value))
}

const SPECIAL = /[\\\t\n\r]/

function escapeText(text: string): string {
    return SPECIAL.test(text)
        ? text.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r')
        : text
}

/** Bytes of COPY text sent at once: large enough to keep the per-write overhead small. */
const CHUNK_BYTES = 1 << 20

/**
 * Yields the rows as COPY text in chunks of about 1 MB, so a large batch is never one huge string.
 * Lines are joined once per chunk rather than appended value by value: a string built by
 * thousands of appends is a tree that has to be walked and copied again when it is encoded.
 */
function* copyChunks(shape: TableShape, rows: readonly Record<string, unknown>[]): Generator<Buffer> {
    const { columns } = shape
    const values: string[] = new Array(columns.length)
    let lines: string[] = []
    let size = 0
    // Rows of one block share their timestamp's Date: formatted once.
    let lastDate: unknown
    let lastDateText = ''
    for (const row of rows) {
        for (let i = 0; i < columns.length; i++) {
            const value = row[columns[i].property]
            if (value instanceof Date) {
                if (value !== lastDate) {
                    lastDate = value
                    lastDateText = value.toISOString()
                }
                values[i] = lastDateText
            } else {
                values[i] = copyValue(value, columns[i].bytea, columns[i].json)
            }
        }
        const line = values.join('\t')
        lines.push(line)
        size += line.length + 1
        if (size > CHUNK_BYTES) {
            yield chunkOf(lines)
            lines = []
            size = 0
        }
    }
    if (lines.length) yield chunkOf(lines)
}

/** The lines as one chunk, each ending in a newline (the empty last element gives the final one in the same join). */
function chunkOf(lines: string[]): Buffer {
    lines.push('')
    return Buffer.from(lines.join('\n'))
}

export async function copyRows(
    client: PoolClient,
    shape: TableShape,
    rows: readonly Record<string, unknown>[],
    table = shape.name
): Promise<void> {
    if (rows.length === 0) return
    const columns = shape.columns.map((c) => quote(c.column)).join(', ')
    const sink = client.query(copyFrom(`COPY ${quote(table)} (${columns}) FROM STDIN`))
    await pipeline(Readable.from(copyChunks(shape, rows)), sink)
}

/**
 * Inserts rows, and for ids already present applies `onConflict` (column -> SQL expression over
 * the existing row `t` and the incoming row `excluded`). Rows go through a temporary table by
 * COPY, then one INSERT ... SELECT ... ON CONFLICT. Returns what `returning` selects.
 */
export async function upsertRows<R = Record<string, unknown>>(
    client: PoolClient,
    shape: TableShape,
    rows: readonly Record<string, unknown>[],
    onConflict: Record<string, string>,
    returning?: string
): Promise<R[]> {
    if (rows.length === 0) return []
    const staging = `staging_${shape.name}`
    await client.query(`CREATE TEMP TABLE ${quote(staging)} (LIKE ${quote(shape.name)}) ON COMMIT DROP`)
    try {
        await copyRows(client, shape, rows, staging)
        const columns = shape.columns.map((c) => quote(c.column)).join(', ')
        const updates = Object.entries(onConflict).map(([column, expr]) => `${quote(column)} = ${expr}`)
        const sql =
            `INSERT INTO ${quote(shape.name)} AS t (${columns}) SELECT ${columns} FROM ${quote(staging)} ` +
            `ON CONFLICT (id) DO ${updates.length ? `UPDATE SET ${updates.join(', ')}` : 'NOTHING'}` +
            (returning ? ` RETURNING ${returning}` : '')
        const result = await client.query(sql)
        return result.rows as R[]
    } finally {
        await client.query(`DROP TABLE ${quote(staging)}`)
    }
}
