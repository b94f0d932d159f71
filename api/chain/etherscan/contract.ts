import { z } from 'zod'
import { verifiedContract, VerifiedRow } from '../queries/smart-contracts'
import { EtherscanContext } from './context'
import { EtherscanError, parseParams } from './envelope'
import { Module, ModuleQueries } from './module'
import { CheckVerifyStatusQuery, verificationActions } from './verification'
import { addressParam } from './params'

const NOT_VERIFIED = 'Contract source code not verified'

const AddressQuery = z.object({
    address: addressParam('Query parameter address is required', 'Invalid address hash'),
})

/** The ABI as a JSON string inside the JSON answer: Etherscan's form, which every client parses a second time. */
async function getabi(ctx: EtherscanContext, query: unknown) {
    const { address } = parseParams(AddressQuery, query)
    const row = await verifiedContract(ctx.edb, address)
    if (!row) throw new EtherscanError(NOT_VERIFIED)
    return JSON.stringify(row.abi)
}

/**
 * One file is sent as its text. Several are sent as Etherscan sends a multi-file verification:
 * the compiler's standard JSON input wrapped in an extra pair of braces, which tools (forge,
 * hardhat-verify, sourcify importers) recognise and unpack; the main file alone would not compile.
 */
function sourceCode(row: VerifiedRow): string {
    const files = Object.entries(row.sources)
    if (files.length === 1) return files[0][1]
    const input = {
        language: 'Solidity',
        sources: Object.fromEntries(files.map(([path, content]) => [path, { content }])),
        settings: row.compiler_settings ?? {
            optimizer: { enabled: row.optimization_enabled, runs: row.optimization_runs ?? 200 },
            evmVersion: row.evm_version,
        },
    }
    return `{${JSON.stringify(input)}}`
}

/**
 * Etherscan's record. An unverified address still answers status "1" with the record's fields
 * empty and the ABI field saying so, as Etherscan does: clients test the ABI text, not the status.
 */
async function getsourcecode(ctx: EtherscanContext, query: unknown) {
    const { address } = parseParams(AddressQuery, query)
    const row = await verifiedContract(ctx.edb, address)
    if (!row) {
        return [{
            SourceCode: '', ABI: NOT_VERIFIED, ContractName: '', CompilerVersion: '', OptimizationUsed: '', Runs: '',
            ConstructorArguments: '', EVMVersion: '', Library: '', LicenseType: '', Proxy: '0', Implementation: '',
            SwarmSource: '', Address: address, FileName: '', IsProxy: 'false', IsPartiallyVerified: '',
        }]
    }
    return [{
        SourceCode: sourceCode(row),
        ABI: JSON.stringify(row.abi),
        ContractName: row.name,
        CompilerVersion: row.compiler_version,
        OptimizationUsed: row.optimization_enabled ? '1' : '0',
        Runs: String(row.optimization_runs ?? 0),
        ConstructorArguments: (row.constructor_arguments ?? '').replace(/^0x/, ''),
        EVMVersion: row.evm_version,
        Library: '',
        LicenseType: row.spdx ?? 'None',
        Proxy: '0',
        Implementation: '',
        SwarmSource: '',
        Address: address,
        FileName: row.source_name,
        IsProxy: 'false',
        // Neither Etherscan nor Blockscout's getsourcecode says how a contract matched; a partial
        // match proves the code, not the sources' text or names, so the record says so, with
        // Blockscout v2's is_partially_verified in this API's casing and string booleans.
        IsPartiallyVerified: row.match_type === 'partial' ? 'true' : 'false',
    }]
}

export const contract: Module = { getabi, getsourcecode, ...verificationActions }
export const contractQueries: ModuleQueries = [AddressQuery, CheckVerifyStatusQuery]
