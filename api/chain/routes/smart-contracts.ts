import { AbiParameter, decodeAbiParameters, Hex } from 'viem'
import { z } from 'zod'
import { DocumentedRouter } from '../../../common/service/api-doc'
import { ChainContext, setLiveCaching } from '../context'
import { notFound } from '../errors'
import { hex, isoTimestamp } from '../format'
import { carried, paginate } from '../pagination'
import { AddressPath, addressParam as parseAddress, parseQuery, q } from '../params'
import { ContractCounters } from '../caches'
import {
    contractByAddress, contractCounts, ContractListRow, ContractRow, isSortedList, verifiedContractList,
} from '../queries/smart-contracts'
import { proxyOf } from '../queries/proxies'
import { proxyFields } from '../render/address'
import { displayValue } from '../render/decode'
import { creationStatus, licenseType, renderContractListItem } from '../render/smart-contract'
import {
    chainOperation, pageOf, SmartContract, SmartContractBytecode, SmartContractCounters, SmartContractListItem, SmartContractVerified,
} from '../schemas'

const TAG = 'smart-contracts'

/** Blockscout's language enum; the filter takes any of them. */
const LANGUAGES = ['solidity', 'vyper', 'yul', 'geas'] as const

const ContractsQuery = z.object({
    q: q.text.optional(),
    filter: z.enum(LANGUAGES).optional(),
    sort: z.enum(['balance', 'transactions_count']).optional(),
    order: z.enum(['asc', 'desc']).optional(),
    // Blockscout's cursor of the default order is its smart_contract row id; here it is the last
    // contract's address.
    smart_contract_id: q.address.optional(),
    // The cursor of a sorted list, as Blockscout's.
    hash: q.address.optional(),
    coin_balance: q.uint.optional(),
    transactions_count: q.int.optional(),
    items_count: q.itemsCount.optional(),
})

/** The next page's cursor: the sorted list's (Blockscout's), else the last contract's address. */
function contractCursor(query: z.infer<typeof ContractsQuery>): (c: ContractListRow) => Record<string, unknown> {
    return isSortedList(query)
        ? (c) => ({ hash: c.id, transactions_count: c.transaction_count, coin_balance: c.balance })
        : (c) => ({ smart_contract_id: c.id })
}

/** The counters, shared by the requests of five minutes (ctx.caches.contractCounters says why). */
export function contractCounters(ctx: ChainContext): Promise<ContractCounters> {
    return ctx.caches.contractCounters.get(async () => {
        const r = await contractCounts(ctx.db)
        return {
            smart_contracts: r.contracts,
            new_smart_contracts_24h: r.new_contracts,
            verified_smart_contracts: r.verified,
            new_verified_smart_contracts_24h: r.new_verified,
        }
    })
}

function decodeConstructorArgs(abi: ContractRow['abi'], args: string | null): [unknown, AbiParameter][] | null {
    const inputs = abi?.find((item) => item.type === 'constructor')?.inputs
    if (!args || !inputs || inputs.length === 0) return null
    try {
        const values = decodeAbiParameters(inputs, args as Hex)
        return inputs.map((input, i) => [displayValue(values[i]), input])
    } catch {
        return null
    }
}

export function smartContractsRoutes(router: DocumentedRouter, ctx: ChainContext): void {
    /**
     * Verified contracts, the most recently verified first (Blockscout: its row id descending,
     * i.e. verification order), or by balance or transaction count. `q` matches anywhere in the
     * name or the address. Every contract the indexer verifies is compiled Solidity, so another
     * language's filter is an empty list. Verified contracts are those deployed from this
     * project's artifacts (at most some thousands), so the orders need no index of their own.
     */
    router.get('/smart-contracts', chainOperation(TAG, {
        operationId: 'listVerifiedContracts',
        summary: 'Verified contracts, the most recently verified first', query: ContractsQuery,
    }, 'A page of contracts', pageOf(SmartContractListItem)), async (req, res) => {
        const query = parseQuery(ContractsQuery, req.query)
        setLiveCaching(res)
        if (query.filter && query.filter !== 'solidity') return void res.json({ items: [], next_page_params: null })
        const rows = await verifiedContractList(ctx.db, { ...query, text: query.q?.trim() })
        const { rows: shown, next } = paginate(rows, contractCursor(query), undefined, carried(req.query, ['q', 'filter', 'sort', 'order']))
        res.json({ items: shown.map(renderContractListItem), next_page_params: next })
    })

    // Before /smart-contracts/:hash, which would take "counters" for a malformed address.
    router.get('/smart-contracts/counters', chainOperation(TAG, {
        operationId: 'getContractCounters',
        summary: 'Contract and verified-contract counts',
    }, 'The counts', SmartContractCounters), async (_req, res) => {
        setLiveCaching(res)
        res.json(await contractCounters(ctx))
    })

    router.get('/smart-contracts/:hash', chainOperation(TAG, {
        operationId: 'getSmartContract',
        summary: 'A contract: its bytecode, and its source when verified', params: AddressPath, notFound: 'contract',
    }, 'The contract', SmartContract), async (req, res) => {
        const hash = parseAddress(req.params.hash)
        const [row, proxy] = await Promise.all([contractByAddress(ctx.db, hash), proxyOf(ctx.db, hash)])
        if (!row?.is_contract) throw notFound()
        // The indexer keeps the creation input, not the runtime code: that comes from the node, and
        // a node that does not answer leaves it null rather than failing the page. A destroyed
        // contract has none, as Blockscout shows it.
        const status = creationStatus(row)
        const deployed = status === 'selfdestructed' ? undefined : await ctx.node.getCode({ address: hash as Hex }).catch((err) => {
            ctx.log.warn({ err, address: hash }, 'runtime code unavailable from the node')
            return undefined
        })
        const unverified = {
            ...proxyFields(proxy),
            conflicting_implementations: null,
            deployed_bytecode: deployed ?? null,
            creation_bytecode: row.creation_input ? hex(row.creation_input) : null,
            creation_status: status,
        } satisfies z.input<typeof SmartContractBytecode>
        setLiveCaching(res)
        if (!row.name || !row.sources || !row.source_name) return void res.json(unverified)
        const main = row.sources[row.source_name] ?? ''
        const partial = row.match_type === 'partial'
        res.json({
            ...unverified,
            is_verified: true,
            is_changed_bytecode: false,
            is_partially_verified: partial,
            is_fully_verified: !partial,
            is_verified_via_sourcify: false,
            is_verified_via_eth_bytecode_db: false,
            is_verified_via_verifier_alliance: false,
            is_blueprint: false,
            certified: false,
            can_be_visualized_via_sol2uml: true,
            verified_twin_address_hash: null,
            sourcify_repo_url: null,
            name: row.name,
            compiler_version: row.compiler_version,
            evm_version: row.evm_version,
            optimization_enabled: row.optimization_enabled,
            optimization_runs: row.optimization_runs,
            verified_at: isoTimestamp(row.verified_at),
            abi: row.abi,
            source_code: main,
            file_path: row.source_name,
            additional_sources: Object.entries(row.sources)
                .filter(([path]) => path !== row.source_name)
                .map(([file_path, source_code]) => ({ file_path, source_code })),
            compiler_settings: row.compiler_settings ?? {
                evmVersion: row.evm_version,
                optimizer: { enabled: row.optimization_enabled, runs: row.optimization_runs },
            },
            external_libraries: [],
            constructor_args: row.constructor_arguments,
            decoded_constructor_args: decodeConstructorArgs(row.abi, row.constructor_arguments),
            language: 'solidity',
            license_type: licenseType(row.spdx),
        } satisfies z.input<typeof SmartContractVerified>)
    })
}
