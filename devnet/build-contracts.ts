import * as fs from 'fs'
import * as path from 'path'
import { EVM_VERSION } from './anvil'

/**
 * Compiles contracts/**\/*.sol with the pinned npm solc (in-process, offline) and writes one
 * artifact per deployable contract to abi/ (test-only contracts to abi/test/), plus abi/index.ts
 * with every ABI `as const` for viem's types and a loader for the artifacts. The artifacts are
 * committed so that running the stack needs no compiler; they carry the full sources and compiler
 * settings, which the explorer shows as the verified source of contracts deployed from them.
 * `npm run contracts:build` runs this; a test fails when the committed files are stale.
 */

const ROOT = path.resolve(__dirname, '../..')
const CONTRACTS_DIR = path.join(ROOT, 'contracts')
const TEST_CONTRACTS_DIR = 'contracts/test/'
export const ABI_DIR = path.join(ROOT, 'abi')

export const COMPILER_SETTINGS = {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: EVM_VERSION,
}

export interface Artifact {
    contractName: string
    sourceName: string
    abi: unknown[]
    bytecode: `0x${string}`
    deployedBytecode: `0x${string}`
    compiler: { version: string; settings: typeof COMPILER_SETTINGS }
    /** Every source unit the contract's metadata lists (ours and imported), with its full text. */
    sources: Record<string, string>
}

interface SolcMessage {
    severity: 'error' | 'warning' | 'info'
    formattedMessage: string
}

interface SolcContract {
    abi: unknown[]
    metadata: string
    evm: { bytecode: { object: string }; deployedBytecode: { object: string } }
}

function listSources(dir: string): string[] {
    return fs
        .readdirSync(dir, { withFileTypes: true })
        .flatMap((entry) => {
            const file = path.join(dir, entry.name)
            if (entry.isDirectory()) return listSources(file)
            return entry.name.endsWith('.sol') ? [file] : []
        })
        .sort()
}

/** Source unit names are repository paths for our files and package paths for imports. */
function readSourceUnit(unit: string): string {
    const file = unit.startsWith('contracts/') ? path.join(ROOT, unit) : require.resolve(unit, { paths: [ROOT] })
    return fs.readFileSync(file, 'utf8')
}

/**
 * Compiles every contract under contracts/ and returns the artifacts by contract name. Reads the
 * files and runs the compiler; writes nothing.
 */
export function compileContracts(): Record<string, Artifact> {
    // Loaded here, not at the top: only building needs the compiler (and its 8 MB of JavaScript).
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded lazily
    const solc = require('solc')
    const sources: Record<string, { content: string }> = {}
    for (const file of listSources(CONTRACTS_DIR)) {
        sources[path.relative(ROOT, file).split(path.sep).join('/')] = { content: fs.readFileSync(file, 'utf8') }
    }
    const input = {
        language: 'Solidity',
        sources,
        settings: {
            ...COMPILER_SETTINGS,
            outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object', 'metadata'] } },
        },
    }
    const imported: Record<string, string> = {}
    const findImports = (unit: string) => {
        try {
            imported[unit] = readSourceUnit(unit)
            return { contents: imported[unit] }
        } catch {
            return { error: `source not found: ${unit}` }
        }
    }
    const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }))
    const errors = ((output.errors ?? []) as SolcMessage[]).filter((e) => e.severity === 'error')
    if (errors.length) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`)

    const version: string = solc.version()
    const artifacts: Record<string, Artifact> = {}
    for (const sourceName of Object.keys(sources)) {
        const contracts = (output.contracts[sourceName] ?? {}) as Record<string, SolcContract>
        for (const [contractName, compiled] of Object.entries(contracts)) {
            // Interfaces and abstract contracts have no code to deploy.
            if (!compiled.evm.bytecode.object) continue
            if (artifacts[contractName]) {
                throw new Error(`contract name ${contractName} is used in ${artifacts[contractName].sourceName} and ${sourceName}`)
            }
            const units = Object.keys(JSON.parse(compiled.metadata).sources as Record<string, unknown>).sort()
            artifacts[contractName] = {
                contractName,
                sourceName,
                abi: compiled.abi,
                bytecode: `0x${compiled.evm.bytecode.object}`,
                deployedBytecode: `0x${compiled.evm.deployedBytecode.object}`,
                compiler: { version, settings: COMPILER_SETTINGS },
                sources: Object.fromEntries(
                    units.map((unit) => [unit, sources[unit]?.content ?? imported[unit] ?? readSourceUnit(unit)])
                ),
            }
        }
    }
    return artifacts
}

/** Where an artifact lives, relative to abi/. */
export function artifactFile(artifact: Pick<Artifact, 'contractName' | 'sourceName'>): string {
    const dir = artifact.sourceName.startsWith(TEST_CONTRACTS_DIR) ? 'test/' : ''
    return `${dir}${artifact.contractName}.json`
}

export function serialiseArtifact(artifact: Artifact): string {
    return JSON.stringify(artifact, null, 2) + '\n'
}

function abiConstName(contractName: string): string {
    return contractName[0].toLowerCase() + contractName.slice(1) + 'Abi'
}

/** The text of abi/index.ts. */
export function renderAbiModule(artifacts: Record<string, Artifact>): string {
    const list = Object.values(artifacts).sort((a, b) => a.contractName.localeCompare(b.contractName))
    // One ABI item per line: readable diffs without a 3,000-line file.
    const abiLiteral = (abi: unknown[]) => `[\n${abi.map((item) => `    ${JSON.stringify(item)},`).join('\n')}\n]`
    return [
        '// Generated by `npm run contracts:build` (devnet/build-contracts.ts) from contracts/**/*.sol. Do not edit.',
        "import * as fs from 'fs'",
        "import * as path from 'path'",
        "import type { Abi, Hex } from 'viem'",
        '',
        ...list.flatMap((a) => [`export const ${abiConstName(a.contractName)} = ${abiLiteral(a.abi)} as const`, '']),
        'export const abis = {',
        ...list.map((a) => `    ${a.contractName}: ${abiConstName(a.contractName)},`),
        '} as const',
        '',
        'export type ContractName = keyof typeof abis',
        '',
        '/** Artifact files relative to abi/. */',
        'const ARTIFACT_FILES: Record<ContractName, string> = {',
        ...list.map((a) => `    ${a.contractName}: '${artifactFile(a)}',`),
        '}',
        '',
        'export interface ContractArtifact<TAbi extends Abi = Abi> {',
        '    contractName: string',
        '    sourceName: string',
        '    abi: TAbi',
        '    bytecode: Hex',
        '    deployedBytecode: Hex',
        '    compiler: { version: string; settings: { optimizer: { enabled: boolean; runs: number }; evmVersion: string } }',
        '    /** Full text of every source unit the contract was compiled from (its verified source). */',
        '    sources: Record<string, string>',
        '}',
        '',
        '/**',
        ' * The JSON artifacts stay in abi/ (tsc does not copy them): next to this file when it runs as',
        ' * TypeScript, two levels up from lib/abi/ when compiled.',
        ' */',
        'export const ARTIFACTS_DIR = [__dirname, path.resolve(__dirname, \'../../abi\')].find((dir) =>',
        `    fs.existsSync(path.join(dir, '${artifactFile(list[0])}'))`,
        ') ?? path.resolve(__dirname, \'../../abi\')',
        '',
        'const loaded = new Map<ContractName, ContractArtifact>()',
        '',
        '/** The committed artifact of a contract: ABI, creation and runtime bytecode, compiler and sources. */',
        'export function loadArtifact<N extends ContractName>(name: N): ContractArtifact<(typeof abis)[N]> {',
        '    let artifact = loaded.get(name)',
        '    if (!artifact) {',
        "        artifact = JSON.parse(fs.readFileSync(path.join(ARTIFACTS_DIR, ARTIFACT_FILES[name]), 'utf8')) as ContractArtifact",
        '        loaded.set(name, artifact)',
        '    }',
        '    return artifact as ContractArtifact<(typeof abis)[N]>',
        '}',
        '',
    ].join('\n')
}

/** Every file the build produces, relative to abi/, with its content. */
export function renderOutputs(artifacts: Record<string, Artifact>): Map<string, string> {
    const files = new Map<string, string>()
    for (const artifact of Object.values(artifacts)) files.set(artifactFile(artifact), serialiseArtifact(artifact))
    files.set('index.ts', renderAbiModule(artifacts))
    return files
}

/**
 * The artifact files currently in abi/ (and abi/test/), relative to abi/. Other files there
 * (codecs/, events/) belong to the indexer and are left alone.
 */
export function listArtifactFiles(): string[] {
    return ['', 'test/'].flatMap((dir) => {
        const full = path.join(ABI_DIR, dir)
        if (!fs.existsSync(full)) return []
        return fs.readdirSync(full).filter((name) => name.endsWith('.json')).map((name) => dir + name)
    }).sort()
}

/** Writes the outputs and deletes artifacts of contracts that no longer exist. */
export function writeOutputs(artifacts: Record<string, Artifact>): string[] {
    const files = renderOutputs(artifacts)
    for (const stale of listArtifactFiles().filter((file) => !files.has(file))) {
        fs.rmSync(path.join(ABI_DIR, stale))
    }
    for (const [file, content] of files) {
        fs.mkdirSync(path.dirname(path.join(ABI_DIR, file)), { recursive: true })
        fs.writeFileSync(path.join(ABI_DIR, file), content)
    }
    return [...files.keys()].sort()
}

if (require.main === module) {
    const written = writeOutputs(compileContracts())
    process.stdout.write(`wrote ${written.length} files to abi/:\n  ${written.join('\n  ')}\n`)
}
