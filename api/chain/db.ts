import { createHash } from 'crypto'
import { Pool, QueryResult, QueryResultRow } from 'pg'

/** The chain API's view of Postgres: plain parameterised queries. */
export interface Db {
    query<R extends QueryResultRow = any>(text: string, values?: unknown[]): Promise<QueryResult<R>>
}

/**
 * Every statement as a named prepared statement: Postgres parses and plans each query text once
 * per connection instead of on every request. The API's statements are a fixed, small set of texts
 * (values always travel as parameters), so the name is a hash of the text.
 */
export function preparedDb(pool: Pool): Db {
    const names = new Map<string, string>()
    const nameOf = (text: string) => {
        let name = names.get(text)
        if (!name) {
            name = `chain_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`
            names.set(text, name)
        }
        return name
    }
    return {
        query: <R extends QueryResultRow>(text: string, values?: unknown[]) =>
            pool.query<R>({ name: nameOf(text), text, values }),
    }
}
