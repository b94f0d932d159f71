import { z } from 'zod'

/**
 * Block explorer links per network (BRIDGE_EXPLORER_URL_<CHAIN>): docs/bridge/README.md#swap-page.
 * A setting is either a base URL, linked as `<base>/tx/{hash}` and `<base>/address/{address}` (Blockscout,
 * the Etherscan family, mempool.space, explorer.solana.com), or two templates separated by a space, the
 * first with `{hash}` and the second with `{address}`, for explorers with other paths (Tronscan).
 */

export interface ExplorerLinks {
    /** A transaction's page, `{hash}` to be replaced. */
    tx: string
    /** An address's page, `{address}` to be replaced. */
    address: string
}

const base = /^https?:\/\/[^\s{}]+$/
const pair = /^(https?:\/\/\S*\{hash\}\S*) (https?:\/\/\S*\{address\}\S*)$/

export const explorerSetting = z.string().refine((v) => base.test(v) || pair.test(v),
    'must be an http(s) base URL, or a transaction template with {hash} and an address template with {address} separated by a space')

export function parseExplorer(value: string | undefined): ExplorerLinks | null {
    if (!value) return null
    const templates = pair.exec(value)
    if (templates) return { tx: templates[1], address: templates[2] }
    const root = value.replace(/\/+$/, '')
    return { tx: `${root}/tx/{hash}`, address: `${root}/address/{address}` }
}
