import { Pool, PoolClient } from 'pg'

/** Runs fn in one transaction; rolled back if it throws. */
export async function inTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect()
    let broken = false
    try {
        await client.query('BEGIN')
        const result = await fn(client)
        await client.query('COMMIT')
        return result
    } catch (err) {
        // A connection that cannot even roll back is not handed to the next request.
        await client.query('ROLLBACK').catch(() => {
            broken = true
        })
        throw err
    } finally {
        client.release(broken)
    }
}
