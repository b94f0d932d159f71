import * as fs from 'fs'
import * as path from 'path'
import { functionSignatures } from '../common/evm/function-signatures'
import { declaredSpdx } from '../common/spdx'
import { Batch } from './batch'

/**
 * Contracts deployed from this project's own compiled artifacts are recorded as verified, with
 * their sources, ABI and compiler settings, when the indexer sees them created: a creation
 * transaction whose input starts with an artifact's creation bytecode (the rest is the encoded
 * constructor arguments), or a pair created by our factory.
 */

interface Artifact {
    contractName: string
    sourceName: string
    abi: unknown[]
    bytecode: string
    compiler: { version: string; settings: { optimizer?: { enabled?: boolean; runs?: number }; evmVersion?: string } }
    sources: Record<string, string>
}

export const ARTIFACTS_DIR = path.resolve(__dirname, '../../abi')

function loadArtifacts(dir: string): Artifact[] {
    if (!fs.existsSync(dir)) return []
    const result: Artifact[] = []
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name)
        if (entry.isDirectory()) {
            result.push(...loadArtifacts(file))
        } else if (entry.name.endsWith('.json')) {
            const json = JSON.parse(fs.readFileSync(file, 'utf8'))
            if (typeof json?.bytecode === 'string' && json.bytecode.length > 2 && json.sources) {
                result.push({ ...json, bytecode: json.bytecode.toLowerCase() })
            }
        }
    }
    return result
}

export class ContractVerifier {
    private readonly artifacts: Artifact[]
    private readonly pairArtifact?: Artifact

    constructor(dir = ARTIFACTS_DIR, pairContractName = 'AmmPair') {
        // Longest bytecode first, so a contract is never matched by a shorter artifact it embeds.
        this.artifacts = loadArtifacts(dir).sort((a, b) => b.bytecode.length - a.bytecode.length)
        this.pairArtifact = this.artifacts.find((a) => a.contractName === pairContractName)
    }

    verifyCreation(batch: Batch, address: string, input: string, at: Date): void {
        const lower = input.toLowerCase()
        const artifact = this.artifacts.find((a) => lower.startsWith(a.bytecode))
        if (artifact) this.record(batch, address, artifact, '0x' + lower.slice(artifact.bytecode.length), at)
    }

    verifyFactoryPair(batch: Batch, address: string, at: Date): void {
        if (this.pairArtifact) this.record(batch, address, this.pairArtifact, null, at)
    }

    private record(batch: Batch, address: string, artifact: Artifact, args: string | null, at: Date): void {
        const optimizer = artifact.compiler.settings.optimizer ?? {}
        batch.activityOf(at.getTime()).verifiedContracts += 1
        batch.verifiedContracts.push({
            id: address,
            name: artifact.contractName,
            sourceName: artifact.sourceName,
            compilerVersion: artifact.compiler.version,
            evmVersion: artifact.compiler.settings.evmVersion ?? 'default',
            optimizationEnabled: optimizer.enabled ?? false,
            optimizationRuns: optimizer.enabled ? optimizer.runs ?? 200 : null,
            sources: artifact.sources,
            abi: artifact.abi,
            constructorArguments: args === '0x' ? null : args,
            verifiedAt: at,
            matchType: 'full',
            compilerSettings: artifact.compiler.settings,
            spdx: declaredSpdx(artifact.sources[artifact.sourceName]),
            selectors: functionSignatures(artifact.abi),
        })
    }
}
