import { Db } from '../db'

/** A proxy as the indexer detected it (docs/indexer.md#proxies), with its implementation's verification. */
export interface ProxyRow {
    proxy_type: string
    implementation: string
    /** the implementation's verified name, null while it is unverified */
    implementation_name: string | null
}

/** The proxy row of `address`, undefined when the indexer did not detect it as a proxy. */
export async function proxyOf(db: Db, address: string): Promise<ProxyRow | undefined> {
    const { rows } = await db.query<ProxyRow>(
        `SELECT p.proxy_type, p.implementation, v.name AS implementation_name
           FROM proxy_contract p LEFT JOIN verified_contract v ON v.id = p.implementation
          WHERE p.id = $1`,
        [address]
    )
    return rows[0]
}
