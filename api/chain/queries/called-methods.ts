import { signatureName } from '../../../common/evm/function-signatures'
import { Db } from '../db'

/**
 * The names the verified ABIs give the calls a page shows: docs/chain-api.md#decoded-calls. A call
 * is named by the verified ABI of the called contract's implementation when it is a detected proxy,
 * else by its own verified ABI (the order callAbis gives the single view), read from the
 * `selectors` map stored with each verification, never from the ABI itself.
 */

/**
 * SQL: the signature (common/evm/function-signatures.ts) the verified ABIs of the contract
 * `contract` give the selector `selector`, null when neither declares it (or either is null). Two
 * primary-key probes and one key of a small map.
 */
export function verifiedSignature(selector: string, contract: string): string {
    return `COALESCE(
        (SELECT i.selectors ->> ${selector} FROM proxy_contract p JOIN verified_contract i ON i.id = p.implementation WHERE p.id = ${contract}),
        (SELECT v.selectors ->> ${selector} FROM verified_contract v WHERE v.id = ${contract}))`
}

/**
 * SQL columns `<as>_implementation` and `<as>_implementation_name`: the implementation of the proxy
 * `column` (null for no proxy) and its verified name, which a kept item records of the contract it
 * calls (shownCallsState), since its method's name may come from that implementation's ABI.
 */
export function implementationInfo(column: string, as: string): string {
    return `(SELECT p.implementation FROM proxy_contract p WHERE p.id = ${column}) AS ${as}_implementation,
            (SELECT i.name FROM proxy_contract p JOIN verified_contract i ON i.id = p.implementation WHERE p.id = ${column}) AS ${as}_implementation_name`
}

/** A call: the contract whose code runs and the selector of its input. */
export interface Call {
    contract: string
    selector: string
}

/** The key of a call in CalledMethods. */
export const callKey = (contract: string, selector: string) => `${contract} ${selector}`

/** The verified names of calls, by callKey: a call no verified ABI names is absent. */
export type CalledMethods = ReadonlyMap<string, string>

/** The verified names of `calls` (a page's: at most some hundred distinct), in one statement. */
export async function calledMethods(db: Db, calls: Iterable<Call>): Promise<CalledMethods> {
    const distinct = new Map<string, Call>()
    for (const c of calls) distinct.set(callKey(c.contract, c.selector), c)
    if (distinct.size === 0) return new Map()
    const list = [...distinct.values()]
    const { rows } = await db.query<{ contract: string; selector: string; signature: string }>(
        `SELECT c.contract, c.selector, n.signature
           FROM unnest($1::text[], $2::text[]) AS c(contract, selector)
           CROSS JOIN LATERAL (SELECT ${verifiedSignature('c.selector', 'c.contract')} AS signature) n
          WHERE n.signature IS NOT NULL`,
        [list.map((c) => c.contract), list.map((c) => c.selector)]
    )
    return new Map(rows.map((r) => [callKey(r.contract, r.selector), signatureName(r.signature)]))
}
