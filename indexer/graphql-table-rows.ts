import type { Model } from '@subsquid/openreader/lib/model'
import { toTable } from '@subsquid/openreader/lib/util/util'
import type { Pool } from 'pg'

/** How old the counts may be when a query is estimated: tables grow by a few blocks' rows in that time. */
const MAX_AGE_MS = 5_000

/**
 * Bounds the rows of every entity's list by its table's row count, for Subsquid's response size
 * estimate. Subsquid takes a list without `limit` to hold the entity's `@cardinality` rows, and
 * unboundedly many without one, so a size limit refuses `{ pairs { id } }` however few pairs there
 * are. A row count is a bound that holds on every chain (a declared cardinality is a guess that a
 * busy chain outgrows, and then lets a huge list through): a small table's list answers without
 * `limit`, a large one's is refused until it is paged. A count stops at `cap` rows (a list that
 * long exceeds the size limit with one field), so it never scans more, and a table that reached it
 * is not counted again: tables only grow (a reorg removes a few rows). Counts are taken before a
 * query when older than MAX_AGE_MS, never while the server is idle. A `@cardinality` declared in
 * schema.graphql still applies when it is lower.
 */
export class TableRowBounds {
    private readonly declared = new Map<string, number | undefined>()
    private readonly full = new Set<string>()
    private countedAt = 0
    private counting?: Promise<void>

    constructor(private readonly model: Model, private readonly pool: Pool, private readonly cap: number) {
        for (const [name, type] of Object.entries(model)) {
            if (type.kind === 'entity') this.declared.set(name, type.cardinality)
        }
    }

    /** Counts the tables again if the last counts are older than MAX_AGE_MS; concurrent callers share one count. */
    async refresh(): Promise<void> {
        if (Date.now() - this.countedAt < MAX_AGE_MS) return
        this.counting ??= this.count().finally(() => { this.counting = undefined })
        return this.counting
    }

    private async count(): Promise<void> {
        const names = [...this.declared.keys()].filter((name) => !this.full.has(name))
        if (names.length) {
            // One round trip; each count reads at most `cap` rows of its table.
            const columns = names.map((name, i) => `(SELECT count(*)::int FROM (SELECT FROM "${toTable(name)}" LIMIT $1) t) AS c${i}`)
            const { rows: [row] } = await this.pool.query(`SELECT ${columns.join(', ')}`, [this.cap])
            names.forEach((name, i) => {
                const rows: number = row[`c${i}`]
                if (rows >= this.cap) this.full.add(name)
                this.bound(name, rows)
            })
        }
        this.countedAt = Date.now()
    }

    private bound(name: string, rows: number): void {
        const entity = this.model[name]
        if (entity.kind !== 'entity') return
        entity.cardinality = Math.min(rows, this.declared.get(name) ?? Infinity)
    }
}
