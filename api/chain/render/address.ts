import type { z } from 'zod'
import { checksum } from '../format'
import { ProxyRow } from '../queries/proxies'
import { Related } from '../queries/related'
import { shownAddressKey, shownAddressState } from '../queries/rendering-changes'
import type { AddressParam as AddressParamSchema } from '../schemas'

/** Blockscout's AddressParam: how every address inside another object (from, to, miner, ...) is shown. */
export type AddressParam = z.input<typeof AddressParamSchema>

interface Known {
    isContract: boolean
    name: string | null
    isVerified: boolean
    /** given where the route loaded it (an address's own page); lists show none */
    proxy?: ProxyRow
    /** an EOA's EIP-7702 delegate and its verified name, given where the route loaded it (an address's own page) */
    delegation?: Delegation
}

/** Where an EOA's code (0xef0100 || delegate) points since an EIP-7702 authorization, and the delegate's verified name. */
export interface Delegation {
    to: string
    name: string | null
}

/**
 * Blockscout's `proxy_type` and `implementations` of an address: every surface that shows them
 * renders them here. The implementation's name is its verified name (null while unverified). An
 * EOA delegated by EIP-7702 is shown as Blockscout shows it, a proxy of type eip7702 whose
 * implementation is the delegate; it stays an EOA (is_contract false): its code is a pointer, and
 * it still signs transactions.
 */
export function proxyFields(proxy: ProxyRow | undefined, delegation?: Delegation): Pick<AddressParam, 'proxy_type' | 'implementations'> {
    if (delegation) return { proxy_type: 'eip7702', implementations: [{ address_hash: checksum(delegation.to), name: delegation.name }] }
    if (!proxy) return { proxy_type: null, implementations: [] }
    return {
        proxy_type: proxy.proxy_type,
        implementations: [{ address_hash: checksum(proxy.implementation), name: proxy.implementation_name }],
    }
}

export type RenderAddress = {
    (address: string): AddressParam
    (address: string | null): AddressParam | null
}

export function addressParam(address: string, known: Known | undefined): AddressParam {
    return {
        hash: checksum(address),
        is_contract: known?.isContract ?? false,
        name: known?.name ?? null,
        is_scam: false,
        reputation: 'ok',
        ...proxyFields(known?.proxy, known?.delegation),
        // Blockscout: null when the address is not in its database at all.
        is_verified: known ? known.isVerified : null,
        ens_domain_name: null,
        metadata: null,
        private_tags: [],
        public_tags: [],
        watchlist_names: [],
    }
}

/**
 * The renderer for the addresses a route loaded with related() (queries/related.ts). The name is
 * the verified contract's name, as Blockscout shows it.
 */
export function relatedAddresses({ addresses }: Pick<Related, 'addresses'>): RenderAddress {
    const known = new Map<string, Known>()
    for (const r of addresses.values()) known.set(r.id, { isContract: r.is_contract, name: r.name, isVerified: r.name !== null })
    return renderer(known)
}

/** The renderer for addresses whose addressInfo columns (queries/addresses.ts) came with the rows: [address field, `as`]. */
export function rowAddresses<R extends object>(rows: readonly R[], columns: readonly (readonly [keyof R & string, string])[]): RenderAddress {
    const known = new Map<string, Known>()
    for (const row of rows) {
        const r = row as Record<string, unknown>
        for (const [field, as] of columns) {
            const address = r[field] as string | null
            const isContract = r[`${as}_contract`] as boolean | null
            if (address === null || isContract === null || known.has(address)) continue
            const name = r[`${as}_name`] as string | null
            known.set(address, { isContract, name, isVerified: name !== null })
        }
    }
    return renderer(known)
}

function renderer(known: Map<string, Known>): RenderAddress {
    return ((address: string | null) => (address === null ? null : addressParam(address, known.get(address)))) as RenderAddress
}

/**
 * What a kept list item shows of the addresses in `columns` of its row (addressInfo columns, as
 * rowAddresses reads them): `[key, state]` pairs for RenderedItems, which drops the item when a
 * commit changes one of them.
 */
export function shownAddresses<R extends object>(row: R, columns: readonly (readonly [keyof R & string, string])[]): [string, string][] {
    const r = row as Record<string, unknown>
    return columns.flatMap(([field, as]) => {
        const address = r[field] as string | null
        return address === null ? [] : [[shownAddressKey(address), shownAddressState(r[`${as}_contract`] as boolean | null, r[`${as}_name`] as string | null)] as [string, string]]
    })
}

/** The same for an address loaded with related(): absent from `addresses` when it has no row. */
export function shownRelated({ addresses }: Pick<Related, 'addresses'>, address: string): [string, string] {
    const known = addresses.get(address)
    return [shownAddressKey(address), shownAddressState(known?.is_contract ?? null, known?.name ?? null)]
}
