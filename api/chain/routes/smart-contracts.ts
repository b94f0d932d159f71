import { Router } from 'express'
import { AbiParameter, decodeAbiParameters, Hex } from 'viem'
import { ChainContext, setLiveCaching } from '../context'
import { notFound } from '../errors'
import { hex, isoTimestamp } from '../format'
import { addressParam as parseAddress } from '../params'
import { displayValue } from '../render/decode'

interface ContractRow {
    is_contract: boolean
    creation_input: Buffer | null
    creation_status: number | null
    name: string | null
    source_name: string | null
    compiler_version: string | null
    evm_version: string | null
    optimization_enabled: boolean | null
    optimization_runs: number | null
    sources: Record<string, string> | null
    abi: { type: string; inputs?: AbiParameter[] }[] | null
    constructor_arguments: string | null
    verified_at: Date | null
}

function license(source: string): string | null {
    const spdx = /SPDX-License-Identifier:\s*([^\s*]+)/.exec(source)?.[1]
    if (!spdx) return null
    // Blockscout's license_type enum names: lowercase, dashes and dots as underscores (e.g. mit, gnu_gpl_v3).
    return spdx.toLowerCase().replace(/[-.]/g, '_')
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

export function smartContractsRoutes(router: Router, ctx: ChainContext): void {
    router.get('/smart-contracts/:hash', async (req, res) => {
        const hash = parseAddress(req.params.hash)
        const { rows } = await ctx.db.query<ContractRow>(
            `SELECT a.is_contract, c.input AS creation_input, c.status AS creation_status, v.name, v.source_name,
                    v.compiler_version, v.evm_version, v.optimization_enabled, v.optimization_runs, v.sources, v.abi,
                    v.constructor_arguments, v.verified_at
               FROM address a
               LEFT JOIN transaction c ON c.id = a.creation_transaction
               LEFT JOIN verified_contract v ON v.id = a.id
              WHERE a.id = $1`,
            [hash]
        )
        const row = rows[0]
        if (!row?.is_contract) throw notFound()
        // The indexer keeps the creation input, not the runtime code: that comes from the node, and
        // a node that does not answer leaves it null rather than failing the page.
        const deployed = await ctx.node.getCode({ address: hash as Hex }).catch((err) => {
            ctx.log.warn({ err, address: hash }, 'runtime code unavailable from the node')
            return undefined
        })
        const unverified = {
            proxy_type: null,
            implementations: [],
            conflicting_implementations: null,
            deployed_bytecode: deployed ?? null,
            creation_bytecode: row.creation_input ? hex(row.creation_input) : null,
            creation_status: row.creation_status === 0 ? 'failed' : 'success',
        }
        setLiveCaching(res)
        if (!row.name || !row.sources || !row.source_name) return void res.json(unverified)
        const main = row.sources[row.source_name] ?? ''
        res.json({
            ...unverified,
            is_verified: true,
            is_changed_bytecode: false,
            is_partially_verified: false,
            is_fully_verified: true,
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
            compiler_settings: {
                evmVersion: row.evm_version,
                optimizer: { enabled: row.optimization_enabled, runs: row.optimization_runs },
            },
            external_libraries: [],
            constructor_args: row.constructor_arguments,
            decoded_constructor_args: decodeConstructorArgs(row.abi, row.constructor_arguments),
            language: 'solidity',
            license_type: license(main),
        })
    })
}
