import { Etherscan } from '@nomicfoundation/hardhat-verify/etherscan'
import { Blockscout } from '@nomicfoundation/hardhat-verify/blockscout'
import { expect } from 'chai'
import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { Client as PgClient } from 'pg'
import { Abi, Address, createWalletClient, encodeAbiParameters, Hex, http, toFunctionSelector } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { WebSocket } from 'ws'
import { functionSignatures } from '../../../common/evm/function-signatures'
import { waitFor } from '../../../common/processes'
import { PROJECT_DIR } from '../../../db/migrate'
import { DEV_MNEMONIC } from '../../../devnet/anvil'
import { devnetChain } from '../../../devnet/deploy'
import { ApiProcess, startApi } from '../../support/api'
import { CHAIN_ID, startTestChain, TestChain } from '../../support/chain'
import { IndexerProcess, startIndexer } from '../../support/indexer'
import { createTestDatabase } from '../../support/postgres'
import { RpcProxy } from '../../support/rpc-proxy'

// solc-js in the test process compiles what the test deploys, as a developer's toolchain would.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- solc has no types
const solc = require('solc') as { compile(input: string): string; version(): string }
// The compiler hardhat itself ships (0.8.26): offered to the api through VERIFIER_SOLC_DIR.
const OLD_SOLJSON = require.resolve('solc/soljson.js', { paths: [path.dirname(require.resolve('hardhat/package.json'))] })
// eslint-disable-next-line @typescript-eslint/no-require-imports -- untyped module and a build named at run time
const oldSolc = (require('solc/wrapper') as (s: unknown) => typeof solc)(require(OLD_SOLJSON))

const V30 = 'v0.8.30+commit.73712a01'
const V26 = 'v0.8.26+commit.8a97fa7a'

const SHOUT = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

library Shout {
    function loud(string memory s) internal pure returns (string memory) {
        return string.concat(s, "!");
    }
}
`
const greeter = (doc: string, mark = '"!"') => `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {Shout} from "./Shout.sol";

/// ${doc}
contract Greeter {
    uint256 public immutable createdAt;
    string public greeting;

    constructor(string memory initial) {
        greeting = initial;
        createdAt = block.number;
    }

    function greet() external view returns (string memory) {
        return string.concat(Shout.loud(greeting), ${mark});
    }
}
`
const COUNTER = `// SPDX-License-Identifier: GPL-3.0
pragma solidity ^0.8.0;

contract Counter {
    uint256 public count;

    function inc() external {
        count += 1;
    }
}
`

/** A function no ABI of this project declares: only the contract's own verified ABI decodes a call to it. */
const BELL = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Bell {
    uint256 public rung;

    function ring(uint256 times, string calldata tune) external {
        rung += times + bytes(tune).length;
    }
}
`

/** Another function no ABI of this project declares, called directly and through a proxy (RELAY) in the lists test. */
const CHIME = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Chime {
    uint256 public struck;

    function strike(uint8 note) external {
        struck += note;
    }
}
`

/** A minimal EIP-1967 proxy (anyone may upgrade it): the indexer detects it by its logic slot when it is created, and again when it emits Upgraded. */
const RELAY = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Relay {
    bytes32 private constant LOGIC = 0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc;
    event Upgraded(address indexed implementation);

    constructor(address logic) {
        relayTo(logic);
    }

    function relayTo(address logic) public {
        assembly { sstore(LOGIC, logic) }
        emit Upgraded(logic);
    }

    fallback() external payable {
        assembly {
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), sload(LOGIC), 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            if iszero(ok) { revert(0, returndatasize()) }
            return(0, returndatasize())
        }
    }
}
`

/** An EIP-1967 beacon proxy and its beacon: the beacon's upgrade changes the proxy's implementation without an event of the proxy's. */
const BEACON = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IBeacon {
    function implementation() external view returns (address);
}

contract Beacon is IBeacon {
    address public implementation;
    event Upgraded(address indexed implementation);

    constructor(address logic) {
        upgradeTo(logic);
    }

    function upgradeTo(address logic) public {
        implementation = logic;
        emit Upgraded(logic);
    }
}

contract BeaconRelay {
    bytes32 private constant BEACON = 0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeab7ee2c2c8b8dd2cf2a1a9d;
    event BeaconUpgraded(address indexed beacon);

    constructor(address beacon) {
        assembly { sstore(BEACON, beacon) }
        emit BeaconUpgraded(beacon);
    }

    fallback() external payable {
        address beacon;
        assembly { beacon := sload(BEACON) }
        address logic = IBeacon(beacon).implementation();
        assembly {
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), logic, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            if iszero(ok) { revert(0, returndatasize()) }
            return(0, returndatasize())
        }
    }
}
`

/** The standard JSON input a toolchain hands the compiler (and, unchanged, a verifier). */
function standardInput(greeterSource: string) {
    return {
        language: 'Solidity',
        sources: { 'contracts/Greeter.sol': { content: greeterSource }, 'contracts/Shout.sol': { content: SHOUT } },
        settings: {
            optimizer: { enabled: true, runs: 200 },
            outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
        },
    }
}

function compile(compiler: typeof solc, input: object, file: string, name: string): { abi: Abi; bytecode: Hex } {
    const output = JSON.parse(compiler.compile(JSON.stringify(input)))
    const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error')
    if (errors.length) throw new Error(errors[0].formattedMessage)
    const c = output.contracts[file][name]
    return { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` }
}

/** A contract whose constructor argument is kept in an immutable: the runtime code holds it, the creation input proves it. */
const CAPPED = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Capped {
    uint256 public immutable cap;

    constructor(uint256 initialCap) {
        cap = initialCap;
    }
}
`

const GOOD = greeter('A greeting kept on chain.')
const ARGS = encodeAbiParameters([{ type: 'string' }], ['hello'])

/**
 * A short source whose compiled output doubles with each level: A<i> and B<i> each `new` both
 * contracts of the level below, so each embeds both creation codes. 18 levels are under 2 KB of
 * source and some 430 MB of compiler output (gigabytes of compiler memory) when every contract is asked for.
 */
function amplifying(levels: number): string {
    let source = '// SPDX-License-Identifier: MIT\npragma solidity ^0.8.0;\ncontract A0 { uint x; }\ncontract B0 { uint y; }\n'
    for (let i = 1; i < levels; i++) {
        source += `contract A${i} { A${i - 1} a = new A${i - 1}(); B${i - 1} b = new B${i - 1}(); }\n`
            + `contract B${i} { B${i - 1} b = new B${i - 1}(); A${i - 1} a = new A${i - 1}(); }\n`
    }
    return source
}

/** A process's resident memory, in MB (Linux). */
function rssMb(pid: number): number {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) / 1024
}

/**
 * Contract verification end to end: contracts the test compiles and deploys on anvil, indexed by
 * the real indexer, verified through the real api process by hardhat-verify's own clients
 * (Etherscan's and Blockscout's) and through Blockscout's v2 routes as its frontend sends them.
 */
describe('chain data API: contract verification', function () {
    let chain: TestChain
    let indexer: IndexerProcess
    let api: ApiProcess
    let db: PgClient
    let solcDir: string
    let databaseUrl: string

    before(async function () {
        chain = await startTestChain()
        databaseUrl = await createTestDatabase('verification')
        indexer = startIndexer({ databaseUrl, rpcUrl: chain.url, contracts: chain.contracts })
        solcDir = fs.mkdtempSync(path.join(os.tmpdir(), 'solc-'))
        fs.copyFileSync(OLD_SOLJSON, path.join(solcDir, `soljson-${V26}.js`))
        api = await startApi({ databaseUrl, rpcUrl: chain.url, contracts: chain.contracts, env: { VERIFIER_SOLC_DIR: solcDir, TRUST_PROXY: 'true' } })
        db = new PgClient({ connectionString: databaseUrl })
        await db.connect()
    })

    after(async function () {
        await db?.end()
        await api?.stop()
        await indexer?.stop()
        await chain?.stop()
        if (solcDir) fs.rmSync(solcDir, { recursive: true, force: true })
    })

    let deployer = 7
    /** Deploys from a fresh key and waits until the indexer has the contract. */
    async function deploy(artifact: { abi: Abi; bytecode: Hex }, args: unknown[] = []): Promise<Address> {
        const wallet = createWalletClient({ account: mnemonicToAccount(DEV_MNEMONIC, { addressIndex: deployer++ }), chain: devnetChain(CHAIN_ID, chain.url), transport: http(chain.url) })
        const hash = await wallet.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n } as never)
        const receipt = await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
        const address = receipt.contractAddress!
        await waitFor(`${address} indexed`, async () => (await db.query('SELECT is_contract FROM address WHERE id = $1', [address.toLowerCase()])).rows[0]?.is_contract === true, 60_000, 50)
        return address
    }

    /** Runs a migration's down and up again in one transaction: what it makes of the rows written before it. */
    async function migrateDownAndUp(file: string): Promise<void> {
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- a migration is plain CommonJS
        const Migration = require(path.join(PROJECT_DIR, 'db/migrations', file))
        const migration = new Migration()
        await db.query('BEGIN')
        try {
            await migration.down(db)
            await migration.up(db)
            await db.query('COMMIT')
        } catch (err) {
            await db.query('ROLLBACK')
            throw err
        }
    }

    const v2 = (route: string, init?: RequestInit) => fetch(`${api.explorerUrl}/api/v2${route}`, init)
    const contractOf = async (address: Address): Promise<any> => (await v2(`/smart-contracts/${address}`)).json()

    /** Blockscout's form: the fields, and the input as the file files[0]. */
    function standardInputForm(input: object, fields: Record<string, string>): FormData {
        const form = new FormData()
        for (const [k, v] of Object.entries(fields)) form.append(k, v)
        form.append('files[0]', new Blob([JSON.stringify(input)], { type: 'application/json' }), 'input.json')
        return form
    }

    /** Joins the address's channel on the live-update socket, as Blockscout's frontend does before it submits; resolves with the first verification_result pushed. */
    async function verificationResult(address: Address): Promise<() => Promise<any>> {
        const ws = new WebSocket(`${api.explorerUrl.replace('http', 'ws')}/socket/v2/websocket?vsn=2.0.0`)
        await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
        const topic = `addresses:${address.toLowerCase()}`
        const joined = new Promise<void>((resolve) => ws.on('message', (data) => {
            const [, ref, , event] = JSON.parse(data.toString())
            if (ref === '1' && event === 'phx_reply') resolve()
        }))
        const result = new Promise<any>((resolve) => ws.on('message', (data) => {
            const [, , t, event, payload] = JSON.parse(data.toString())
            if (t === topic && event === 'verification_result') resolve(payload)
        }))
        ws.send(JSON.stringify(['1', '1', topic, 'phx_join', {}]))
        await joined
        return async () => {
            try {
                return await result
            } finally {
                ws.close()
            }
        }
    }

    it('lists the installed compilers, the bundled one and those of VERIFIER_SOLC_DIR, in the config route', async function () {
        const res = await v2('/smart-contracts/verification/config')
        expect(res.status).to.equal(200)
        const config: any = await res.json()
        expect(config.solidity_compiler_versions).to.deep.equal([V30, V26])
        expect(config.verification_options).to.include.members(['standard-input', 'flattened-code'])
        expect(config.solidity_evm_versions).to.include('cancun')
        expect(config.license_types.mit).to.equal(3)
    })

    it('verifies a contract through hardhat-verify\'s Etherscan client; the explorer then serves its source, ABI, settings and arguments', async function () {
        const input = standardInput(GOOD)
        const artifact = compile(solc, input, 'contracts/Greeter.sol', 'Greeter')
        const address = await deploy(artifact, ['hello'])
        const client = new Etherscan('any-key', `${api.explorerUrl}/api`, 'http://explorer.invalid', undefined)

        expect(await client.isVerified(address)).to.equal(false)
        const submitted = await client.verify(address, JSON.stringify(input), 'contracts/Greeter.sol:Greeter', V30, ARGS.slice(2))
        const status = await client.getVerificationStatus(submitted.message)
        expect(status.isSuccess(), status.message).to.equal(true)
        expect(await client.isVerified(address)).to.equal(true)
        // A second submission is refused as Etherscan's clients expect.
        const again = await client.verify(address, JSON.stringify(input), 'contracts/Greeter.sol:Greeter', V30, ARGS.slice(2)).then(() => 'accepted', (err: Error) => err.message)
        expect(again).to.include('responded that the contract contracts/Greeter.sol:Greeter at').and.include('is already verified')

        const contract = await contractOf(address)
        expect(contract).to.include({ is_verified: true, is_fully_verified: true, is_partially_verified: false, name: 'Greeter', compiler_version: V30, file_path: 'contracts/Greeter.sol', optimization_enabled: true, optimization_runs: 200, license_type: 'mit' })
        expect(contract.source_code).to.equal(GOOD)
        expect(contract.additional_sources).to.deep.equal([{ file_path: 'contracts/Shout.sol', source_code: SHOUT }])
        expect(contract.abi).to.deep.equal(artifact.abi)
        expect(contract.constructor_args).to.equal(ARGS)
        expect(contract.decoded_constructor_args[0][0]).to.equal('hello')
        expect(contract.compiler_settings.optimizer).to.deep.equal({ enabled: true, runs: 200 })

        const etherscan = async (action: string): Promise<any> => (await fetch(`${api.explorerUrl}/api?module=contract&action=${action}&address=${address}`)).json()
        const [source] = (await etherscan('getsourcecode')).result
        expect(source).to.include({ ContractName: 'Greeter', CompilerVersion: V30, OptimizationUsed: '1', ConstructorArguments: ARGS.slice(2) })
        const published = JSON.parse(source.SourceCode.slice(1, -1))
        expect(published.sources['contracts/Shout.sol'].content).to.equal(SHOUT)
        // The settings as compiled, so the published input compiles to the same code.
        expect(published.settings).to.deep.equal({ optimizer: { enabled: true, runs: 200 } })
        expect(JSON.parse((await etherscan('getabi')).result)).to.deep.equal(artifact.abi)
        const list: any = await (await v2('/smart-contracts?q=Greeter')).json()
        expect(list.items.map((i: { address: { hash: string } }) => i.address.hash.toLowerCase())).to.include(address.toLowerCase())
    })

    it('refuses a source that is not the deployed one, with the reason, through hardhat-verify\'s Blockscout client', async function () {
        const address = await deploy(compile(solc, standardInput(GOOD), 'contracts/Greeter.sol', 'Greeter'), ['hello'])
        const client = new Blockscout(`${api.explorerUrl}/api`, 'http://explorer.invalid')
        const pushed = await verificationResult(address)
        const wrong = standardInput(greeter('A greeting kept on chain.', '"?"'))
        const submitted = await client.verify(address, JSON.stringify(wrong), 'contracts/Greeter.sol:Greeter', V30)
        const outcome = await client.getVerificationStatus(submitted.message).then((r) => r.message, (err: Error) => err.message)
        expect(outcome).to.match(/Fail - Unable to verify\. The compiled bytecode of contracts\/Greeter\.sol:Greeter does not match the code deployed at/)
        expect((await contractOf(address)).is_verified).to.equal(undefined)
        expect(await client.isVerified(address)).to.equal(false)
        const push = await pushed()
        expect(push.status).to.equal('error')
        expect(push.errors.contract_source_code[0]).to.match(/does not match the code deployed at/)
    })

    it('reports a source whose metadata differs as a partial match, and a later exact source upgrades it to full (Blockscout\'s standard-input form)', async function () {
        const address = await deploy(compile(solc, standardInput(GOOD), 'contracts/Greeter.sol', 'Greeter'), ['hello'])
        const reworded = standardInput(greeter('Another comment: the same code, another metadata hash.'))
        const pushed = await verificationResult(address)
        const res = await v2(`/smart-contracts/${address}/verification/via/standard-input`, {
            method: 'POST', body: standardInputForm(reworded, { compiler_version: V30, contract_name: 'Greeter', autodetect_constructor_args: 'true', license_type: 'mit' }),
        })
        expect(res.status).to.equal(200)
        expect(await res.json()).to.deep.equal({ message: 'Smart-contract verification started' })
        expect(await pushed()).to.deep.equal({ status: 'success' })
        expect((await contractOf(address)).is_verified).to.equal(true)
        const partial = await contractOf(address)
        expect(partial).to.include({ is_partially_verified: true, is_fully_verified: false })
        expect(partial.source_code).to.include('Another comment')
        expect(partial.constructor_args).to.equal(ARGS)

        const exact = await v2(`/smart-contracts/${address}/verification/via/standard-input`, {
            method: 'POST', body: standardInputForm(standardInput(GOOD), { compiler_version: V30, contract_name: 'contracts/Greeter.sol:Greeter' }),
        })
        expect(await exact.json()).to.deep.equal({ message: 'Smart-contract verification started' })
        await waitFor('the full verification', async () => (await contractOf(address)).is_fully_verified === true, 120_000, 200)
        expect((await contractOf(address)).source_code).to.equal(GOOD)
        const again = await v2(`/smart-contracts/${address}/verification/via/standard-input`, {
            method: 'POST', body: standardInputForm(standardInput(GOOD), { compiler_version: V30 }),
        })
        expect(await again.json()).to.deep.equal({ message: 'Already verified' })
    })

    it('decodes a call on /transactions/{h} with the called contract\'s own verified ABI once it is verified, not before', async function () {
        const input = { language: 'Solidity', sources: { 'contracts/Bell.sol': { content: BELL } }, settings: { outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } } }
        const bell = compile(solc, input, 'contracts/Bell.sol', 'Bell')
        const address = await deploy(bell)
        const wallet = createWalletClient({ account: mnemonicToAccount(DEV_MNEMONIC, { addressIndex: deployer++ }), chain: devnetChain(CHAIN_ID, chain.url), transport: http(chain.url) })
        const hash = await wallet.writeContract({ address, abi: bell.abi, functionName: 'ring', args: [3n, 'jingle'], maxFeePerGas: 0n, maxPriorityFeePerGas: 0n } as never)
        await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
        await waitFor(`${hash} indexed`, async () => (await db.query('SELECT 1 FROM transaction WHERE id = $1', [hash])).rows.length === 1, 60_000, 50)
        const selector = toFunctionSelector('ring(uint256,string)')

        const before: any = await (await v2(`/transactions/${hash}`)).json()
        expect(before).to.deep.include({ method: selector, decoded_input: null })

        const res = await v2(`/smart-contracts/${address}/verification/via/standard-input`, {
            method: 'POST', body: standardInputForm(input, { compiler_version: V30, contract_name: 'Bell' }),
        })
        expect(res.status).to.equal(200)
        await waitFor('the Bell verified', async () => (await contractOf(address)).is_verified === true, 120_000, 200)

        const after: any = await (await v2(`/transactions/${hash}`)).json()
        expect(after).to.deep.include({
            method: 'ring',
            decoded_input: {
                method_id: selector.slice(2),
                method_call: 'ring(uint256 times, string tune)',
                parameters: [{ name: 'times', type: 'uint256', value: '3' }, { name: 'tune', type: 'string', value: 'jingle' }],
            },
        })
    })

    it('names a call in every list with the verified ABI once the contract, or the implementation behind the proxy called, is verified: the selector before', async function () {
        const source = (file: string, content: string) => ({ language: 'Solidity', sources: { [file]: { content } }, settings: { outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } } })
        const input = source('contracts/Chime.sol', CHIME)
        const chime = compile(solc, input, 'contracts/Chime.sol', 'Chime')
        const implementation = await deploy(chime)
        // The same code at another address: not verified by the verification of the first.
        const unverified = await deploy(chime)
        const relay = compile(solc, source('contracts/Relay.sol', RELAY), 'contracts/Relay.sol', 'Relay')
        const proxy = await deploy(relay, [implementation])
        const [impl, prox] = [implementation.toLowerCase(), proxy.toLowerCase()]
        expect((await db.query('SELECT implementation FROM proxy_contract WHERE id = $1', [prox])).rows[0]?.implementation).to.equal(impl)
        const account = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: deployer++ })
        const wallet = createWalletClient({ account, chain: devnetChain(CHAIN_ID, chain.url), transport: http(chain.url) })
        const caller = account.address.toLowerCase()
        const strike = async (address: Address): Promise<Hex> => {
            const hash = await wallet.writeContract({ address, abi: chime.abi, functionName: 'strike', args: [7], maxFeePerGas: 0n, maxPriorityFeePerGas: 0n } as never)
            await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
            await waitFor(`${hash} indexed`, async () => (await db.query('SELECT 1 FROM transaction WHERE id = $1', [hash])).rows.length === 1, 60_000, 50)
            return hash
        }
        const selector = toFunctionSelector('strike(uint8)')
        const direct = await strike(implementation)
        const viaProxy = await strike(proxy)
        const blockOf = async (hash: Hex): Promise<number> => (await db.query('SELECT block_number FROM transaction WHERE id = $1', [hash])).rows[0].block_number
        const blocks = [...new Set([await blockOf(direct), await blockOf(viaProxy)])]
        // The chain's clock, not this machine's, dates the blocks the CSV export's period selects.
        const { rows: [period] } = await db.query('SELECT min(timestamp) AS first, max(timestamp) AS last FROM transaction WHERE id = ANY($1)', [[direct, viaProxy]])

        const json = async (route: string): Promise<any> => (await v2(route)).json()
        /** `method` of the direct call and of the call through the proxy in every list that shows them. */
        const shown = async (): Promise<Record<string, unknown[]>> => {
            const lists: Record<string, any[]> = {
                '/transactions': (await json('/transactions')).items,
                '/main-page/transactions': await json('/main-page/transactions'),
                '/blocks/{n}/transactions': (await Promise.all(blocks.map((n) => json(`/blocks/${n}/transactions`)))).flatMap((page) => page.items),
                '/addresses/{caller}/transactions': (await json(`/addresses/${caller}/transactions`)).items,
                '/addresses/{proxy}/transactions': (await json(`/addresses/${prox}/transactions`)).items,
                '/advanced-filters': (await json(`/advanced-filters?methods=${selector}`)).items,
            }
            const csv = await (await fetch(`${api.explorerUrl}/api/v1/transactions-csv?${new URLSearchParams({
                address_id: caller, from_period: new Date(period.first.getTime() - 60_000).toISOString(), to_period: new Date(period.last.getTime() + 60_000).toISOString(),
            })}`)).text()
            const [header, ...lines] = csv.trim().split(/\r?\n/).map((l) => l.split(','))
            const column = header.indexOf('MethodName')
            const txlist = ((await (await fetch(`${api.explorerUrl}/api?module=account&action=txlist&address=${caller}`)).json()) as any).result as any[]
            return {
                ...Object.fromEntries(Object.entries(lists).map(([route, items]) => [route, [direct, viaProxy].map((h) => items.find((i) => i.hash === h)?.method)])),
                'CSV MethodName': [direct, viaProxy].map((h) => lines.find((l) => l[0] === h)?.[column]),
                'Etherscan txlist functionName': [direct, viaProxy].map((h) => txlist.find((t) => t.hash === h)?.functionName),
            }
        }
        // Etherscan's functionName is the signature with its parameters' names; unnamed, it is empty.
        const signatureOf = (name: string) => (name === 'strike' ? 'strike(uint8 note)' : '')
        const everywhere = ([ownName, proxyName]: string[]) => ({
            '/transactions': [ownName, proxyName], '/main-page/transactions': [ownName, proxyName], '/blocks/{n}/transactions': [ownName, proxyName],
            '/addresses/{caller}/transactions': [ownName, proxyName], '/addresses/{proxy}/transactions': [undefined, proxyName],
            '/advanced-filters': [ownName, proxyName], 'CSV MethodName': [ownName, proxyName],
            'Etherscan txlist functionName': [signatureOf(ownName), signatureOf(proxyName)],
        })
        expect(await shown()).to.deep.equal(everywhere([selector, selector]))

        // The socket of the caller's address pushes its new transactions as the lists render them.
        const ws = new WebSocket(`${api.explorerUrl.replace('http', 'ws')}/socket/v2/websocket?vsn=2.0.0`)
        await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
        const pushed: any[] = []
        const joined = new Promise<void>((resolve) => ws.on('message', (data) => {
            const [, ref, topic, event, payload] = JSON.parse(data.toString())
            if (ref === '1' && event === 'phx_reply') resolve()
            if (topic === `addresses:${caller}` && event === 'transaction') pushed.push(...payload.transactions)
        }))
        ws.send(JSON.stringify(['1', '1', `addresses:${caller}`, 'phx_join', {}]))
        await joined
        try {
            const before = await strike(proxy)
            await waitFor('the push of a call before verification', async () => pushed.some((t) => t.hash === before), 30_000, 50)
            expect(pushed.find((t) => t.hash === before).method).to.equal(selector)

            const res = await v2(`/smart-contracts/${implementation}/verification/via/standard-input`, {
                method: 'POST', body: standardInputForm(input, { compiler_version: V30, contract_name: 'Chime' }),
            })
            expect(res.status).to.equal(200)
            await waitFor('the Chime verified', async () => (await contractOf(implementation)).is_verified === true, 120_000, 200)
            // The items kept before are dropped when the next block arrives (the direct call's by its name, the proxy's by its implementation's).
            const after = await strike(proxy)
            await waitFor('the push of a call after verification', async () => pushed.some((t) => t.hash === after), 30_000, 50)
            expect(pushed.find((t) => t.hash === after).method).to.equal('strike')
        } finally {
            ws.close()
        }
        expect(await shown()).to.deep.equal(everywhere(['strike', 'strike']))
        expect((await json(`/transactions/${viaProxy}`)).method).to.equal('strike')

        // An upgrade to an unverified implementation: nothing verified names the proxy's calls any more, past ones
        // included (Blockscout decodes them with the current implementation too), once the upgrade's block is the head.
        const upgrade = await wallet.writeContract({ address: proxy, abi: relay.abi, functionName: 'relayTo', args: [unverified], maxFeePerGas: 0n, maxPriorityFeePerGas: 0n } as never)
        await chain.client.waitForTransactionReceipt({ hash: upgrade, pollingInterval: 50 })
        const upgraded = everywhere(['strike', selector])
        await waitFor('the lists after the upgrade', async () => JSON.stringify(await shown()) === JSON.stringify(upgraded), 30_000, 200)
        expect(await shown()).to.deep.equal(upgraded)
        expect((await json(`/transactions/${viaProxy}`)).method).to.equal(selector)
    })

    it('names the calls of a beacon\'s proxies anew in the lists when the beacon is upgraded, although no event of theirs says so', async function () {
        const input = { language: 'Solidity', sources: { 'contracts/Chime.sol': { content: CHIME } }, settings: { outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } } }
        const chime = compile(solc, input, 'contracts/Chime.sol', 'Chime')
        const beaconInput = { language: 'Solidity', sources: { 'contracts/Beacon.sol': { content: BEACON } }, settings: { outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } } }
        const verified = await deploy(chime)
        const unverified = await deploy(chime)
        const res = await v2(`/smart-contracts/${verified}/verification/via/standard-input`, {
            method: 'POST', body: standardInputForm(input, { compiler_version: V30, contract_name: 'Chime' }),
        })
        expect(res.status).to.equal(200)
        await waitFor('the Chime verified', async () => (await contractOf(verified)).is_verified === true, 120_000, 200)
        const beaconArtifact = compile(solc, beaconInput, 'contracts/Beacon.sol', 'Beacon')
        const beacon = await deploy(beaconArtifact, [verified])
        const proxy = await deploy(compile(solc, beaconInput, 'contracts/Beacon.sol', 'BeaconRelay'), [beacon])
        const implementationOf = async () => (await db.query('SELECT implementation FROM proxy_contract WHERE id = $1', [proxy.toLowerCase()])).rows[0]?.implementation
        expect(await implementationOf()).to.equal(verified.toLowerCase())

        const wallet = createWalletClient({ account: mnemonicToAccount(DEV_MNEMONIC, { addressIndex: deployer++ }), chain: devnetChain(CHAIN_ID, chain.url), transport: http(chain.url) })
        const send = async (request: object): Promise<Hex> => {
            const hash = await wallet.writeContract({ ...request, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n } as never)
            await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
            await waitFor(`${hash} indexed`, async () => (await db.query('SELECT 1 FROM transaction WHERE id = $1', [hash])).rows.length === 1, 60_000, 50)
            return hash
        }
        const call = await send({ address: proxy, abi: chime.abi, functionName: 'strike', args: [3] })
        const methods = async () => {
            const lists = [(await (await v2('/transactions')).json() as any).items, (await (await v2(`/addresses/${proxy}/transactions`)).json() as any).items]
            return lists.map((items: any[]) => items.find((t) => t.hash === call)?.method)
        }
        // Kept by the lists at this head, named by the verified implementation.
        expect(await methods()).to.deep.equal(['strike', 'strike'])

        // The beacon's Upgraded: the indexer reads its proxies again and writes them with the block.
        await send({ address: beacon, abi: beaconArtifact.abi, functionName: 'upgradeTo', args: [unverified] })
        await waitFor('the proxy following its beacon', async () => (await implementationOf()) === unverified.toLowerCase(), 30_000, 50)
        const selector = toFunctionSelector('strike(uint8)')
        await waitFor('the lists after the beacon\'s upgrade', async () => (await methods()).every((m) => m === selector), 10_000, 100)
        expect(await methods()).to.deep.equal([selector, selector])
    })

    it('stores a verified ABI\'s function names by selector, as the migration fills them for earlier rows', async function () {
        const input = { language: 'Solidity', sources: { 'contracts/Chime.sol': { content: CHIME } }, settings: { outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } } }
        const address = await deploy(compile(solc, input, 'contracts/Chime.sol', 'Chime'))
        const res = await v2(`/smart-contracts/${address}/verification/via/standard-input`, {
            method: 'POST', body: standardInputForm(input, { compiler_version: V30, contract_name: 'Chime' }),
        })
        expect(res.status).to.equal(200)
        await waitFor('the Chime verified', async () => (await contractOf(address)).is_verified === true, 120_000, 200)
        const stored = async () => (await db.query<{ id: string; abi: unknown[]; selectors: Record<string, string> }>('SELECT id, abi, selectors FROM verified_contract ORDER BY id')).rows
        const before = await stored()
        expect(before.find((r) => r.id === address.toLowerCase())?.selectors).to.deep.equal({
            [toFunctionSelector('strike(uint8)')]: 'strike(uint8 note)', [toFunctionSelector('struck()')]: 'struck()',
        })
        // Every row's, whoever verified it (the tests before, when they ran), as the writers' helper makes them.
        for (const row of before) expect(row.selectors, row.id).to.deep.equal(functionSignatures(row.abi))

        await migrateDownAndUp('1795436100000-VerifiedSelectors.js')
        expect(await stored()).to.deep.equal(before)
    })

    it('lists verified contracts without reading a source: the licence is the one stored at verification, and the migration fills it for earlier rows', async function () {
        const input = standardInput(GOOD)
        const address = await deploy(compile(solc, input, 'contracts/Greeter.sol', 'Greeter'), ['hello'])
        const client = new Etherscan('any-key', `${api.explorerUrl}/api`, 'http://explorer.invalid', undefined)
        const submitted = await client.verify(address, JSON.stringify(input), 'contracts/Greeter.sol:Greeter', V30, ARGS.slice(2))
        expect((await client.getVerificationStatus(submitted.message)).isSuccess()).to.equal(true)
        const listed = async (): Promise<any> => ((await (await v2(`/smart-contracts?q=${address}`)).json()) as any).items
        expect((await listed()).map((i: any) => i.license_type)).to.deep.equal(['mit'])
        const id = address.toLowerCase()

        // Sources whose scan would say another licence: the list still says the stored one, so it did not scan them.
        const { rows: [{ sources }] } = await db.query('SELECT sources FROM verified_contract WHERE id = $1', [id])
        await db.query(`UPDATE verified_contract SET sources = jsonb_set(sources, '{contracts/Greeter.sol}', to_jsonb($2::text)) WHERE id = $1`,
            [id, '// SPDX-License-Identifier: GPL-3.0\n' + GOOD])
        expect((await listed()).map((i: any) => i.license_type)).to.deep.equal(['mit'])
        expect((await db.query('SELECT spdx FROM verified_contract WHERE id = $1', [id])).rows[0].spdx).to.equal('MIT')

        // A row from before the column (the column dropped and added again by the migration) gets the licence of its sources.
        await migrateDownAndUp('1795433300000-VerifiedContractListColumns.js')
        expect((await db.query('SELECT spdx FROM verified_contract WHERE id = $1', [id])).rows[0].spdx).to.equal('GPL-3.0')
        expect((await listed()).map((i: any) => i.license_type)).to.deep.equal(['gnu_gpl_v3'])
        await db.query(`UPDATE verified_contract SET sources = $2, spdx = 'MIT' WHERE id = $1`, [id, JSON.stringify(sources)])
    })

    it('with no known creation input, proves only the runtime: the match is partial and the stated constructor arguments are not shown', async function () {
        const input = { language: 'Solidity', sources: { 'contracts/Capped.sol': { content: CAPPED } }, settings: { optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } } }
        const artifact = compile(solc, input, 'contracts/Capped.sol', 'Capped')
        const original = await deploy(artifact, [1000n])
        // The same code at an address whose creation the indexer never saw, as a contract of the
        // genesis allocation is: the code is put there, and a call makes the indexer meet the address.
        const address = `0x${'ca'.repeat(20)}` as Address
        const code = await chain.client.getCode({ address: original })
        await chain.client.request({ method: 'anvil_setCode' as any, params: [address, code] as any })
        const caller = createWalletClient({ account: mnemonicToAccount(DEV_MNEMONIC, { addressIndex: deployer++ }), chain: devnetChain(CHAIN_ID, chain.url), transport: http(chain.url) })
        const call = await caller.sendTransaction({ to: address, data: '0x355274ea', maxFeePerGas: 0n, maxPriorityFeePerGas: 0n } as never)
        await chain.client.waitForTransactionReceipt({ hash: call, pollingInterval: 50 })
        await waitFor(`${address} indexed`, async () => (await db.query('SELECT is_contract FROM address WHERE id = $1', [address.toLowerCase()])).rows[0]?.is_contract === true, 60_000, 50)
        expect(await chain.client.readContract({ address, abi: artifact.abi, functionName: 'cap' })).to.equal(1000n)

        const claimed = encodeAbiParameters([{ type: 'uint256' }], [123456789n])
        const client = new Etherscan('any-key', `${api.explorerUrl}/api`, 'http://explorer.invalid', undefined)
        const submitted = await client.verify(address, JSON.stringify(input), 'contracts/Capped.sol:Capped', V30, claimed.slice(2))
        const status = await client.getVerificationStatus(submitted.message)
        expect(status.isSuccess(), status.message).to.equal(true)

        const contract = await contractOf(address)
        expect(contract).to.include({ is_verified: true, is_partially_verified: true, is_fully_verified: false, name: 'Capped', constructor_args: null, decoded_constructor_args: null })
        const [source] = ((await (await fetch(`${api.explorerUrl}/api?module=contract&action=getsourcecode&address=${address}`)).json()) as any).result
        expect(source).to.include({ ContractName: 'Capped', ConstructorArguments: '', IsPartiallyVerified: 'true' })
    })

    it('keeps only the sources the compiled contract names: a file nobody imports is not published with it', async function () {
        const input = standardInput(GOOD)
        const address = await deploy(compile(solc, input, 'contracts/Greeter.sol', 'Greeter'), ['hello'])
        const pinned = { ...input, sources: { ...input.sources, 'contracts/Pinned.sol': { content: '// Any text a stranger wants shown with this contract.\n' } } }
        const client = new Etherscan('any-key', `${api.explorerUrl}/api`, 'http://explorer.invalid', undefined)
        const submitted = await client.verify(address, JSON.stringify(pinned), 'contracts/Greeter.sol:Greeter', V30, ARGS.slice(2))
        const status = await client.getVerificationStatus(submitted.message)
        expect(status.isSuccess(), status.message).to.equal(true)

        const contract = await contractOf(address)
        // The unimported file changes neither the code nor its metadata hash: the match is full all the same.
        expect(contract).to.include({ is_fully_verified: true, file_path: 'contracts/Greeter.sol' })
        expect(contract.additional_sources).to.deep.equal([{ file_path: 'contracts/Shout.sol', source_code: SHOUT }])
        const [source] = ((await (await fetch(`${api.explorerUrl}/api?module=contract&action=getsourcecode&address=${address}`)).json()) as any).result
        expect(Object.keys(JSON.parse(source.SourceCode.slice(1, -1)).sources).sort()).to.deep.equal(['contracts/Greeter.sol', 'contracts/Shout.sol'])
        expect(source.IsPartiallyVerified).to.equal('false')
    })

    it('says a match is partial in every answer, so a name that only a partial match gave is not taken for proven (v2 and getsourcecode)', async function () {
        const address = await deploy(compile(solc, standardInput(GOOD), 'contracts/Greeter.sol', 'Greeter'), ['hello'])
        // Another contract name changes the metadata hash only: the code matches, the name is the submitter's.
        const renamed = standardInput(GOOD.replace('contract Greeter', 'contract OfficialBridge'))
        const client = new Etherscan('any-key', `${api.explorerUrl}/api`, 'http://explorer.invalid', undefined)
        const submitted = await client.verify(address, JSON.stringify(renamed), 'contracts/Greeter.sol:OfficialBridge', V30, ARGS.slice(2))
        const status = await client.getVerificationStatus(submitted.message)
        expect(status.isSuccess(), status.message).to.equal(true)

        expect(await contractOf(address)).to.include({ name: 'OfficialBridge', is_verified: true, is_partially_verified: true, is_fully_verified: false })
        const [source] = ((await (await fetch(`${api.explorerUrl}/api?module=contract&action=getsourcecode&address=${address}`)).json()) as any).result
        expect(source).to.include({ ContractName: 'OfficialBridge', IsPartiallyVerified: 'true' })
        const [unverified] = ((await (await fetch(`${api.explorerUrl}/api?module=contract&action=getsourcecode&address=${mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 3 }).address}`)).json()) as any).result
        expect(unverified.IsPartiallyVerified).to.equal('')
    })

    it('verifies a flattened source with a compiler from VERIFIER_SOLC_DIR', async function () {
        const input = { language: 'Solidity', sources: { 'Counter.sol': { content: COUNTER } }, settings: { optimizer: { enabled: false, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } } }
        const address = await deploy(compile(oldSolc, input, 'Counter.sol', 'Counter'))
        const res = await v2(`/smart-contracts/${address}/verification/via/flattened-code`, {
            method: 'POST', headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ compiler_version: V26, source_code: COUNTER, contract_name: 'Counter', is_optimization_enabled: false, evm_version: 'default', autodetect_constructor_args: true, license_type: 'gnu_gpl_v3' }),
        })
        expect(res.status, await res.clone().text()).to.equal(200)
        await waitFor('the flattened verification', async () => (await contractOf(address)).is_verified === true, 120_000, 200)
        expect(await contractOf(address)).to.include({ is_fully_verified: true, compiler_version: V26, name: 'Counter', optimization_enabled: false, license_type: 'gnu_gpl_v3', constructor_args: null })
    })

    it('answers bad submissions with a clear 4xx: an unknown compiler, no contract, no file, a malformed input, a body too large', async function () {
        const address = await deploy(compile(solc, standardInput(GOOD), 'contracts/Greeter.sol', 'Greeter'), ['hello'])
        const post = (form: FormData, at: string = address) => v2(`/smart-contracts/${at}/verification/via/standard-input`, { method: 'POST', body: form })
        const unknown = await post(standardInputForm(standardInput(GOOD), { compiler_version: 'v0.4.11+commit.68ef5810' }))
        expect(unknown.status).to.equal(422)
        expect(JSON.stringify(await unknown.json())).to.include('is not installed here; installed: v0.8.30+commit.73712a01, v0.8.26+commit.8a97fa7a')
        const eoa = await post(standardInputForm(standardInput(GOOD), { compiler_version: V30 }), mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 3 }).address)
        expect(eoa.status).to.equal(422)
        expect(await eoa.json()).to.deep.equal({ message: 'Address is not a smart-contract' })
        const noFile = new FormData()
        noFile.append('compiler_version', V30)
        expect((await post(noFile)).status).to.equal(422)
        const vyper = await post(standardInputForm({ language: 'Vyper', sources: { 'a.vy': { content: '' } } }, { compiler_version: V30 }))
        expect(vyper.status).to.equal(422)
        const huge = await v2(`/smart-contracts/${address}/verification/via/flattened-code`, {
            method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ source_code: 'x'.repeat(6 * 1024 * 1024) }),
        })
        expect(huge.status).to.equal(413)

        const etherscan: any = await (await fetch(`${api.explorerUrl}/api`, {
            method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ module: 'contract', action: 'verifysourcecode', contractaddress: address, sourceCode: COUNTER, contractname: 'Counter', compilerversion: 'v0.5.0+commit.1d4f565a' }),
        })).json()
        expect(etherscan).to.include({ status: '0', message: 'NOTOK' })
        expect(etherscan.result).to.include('is not installed here')
        const status: any = await (await fetch(`${api.explorerUrl}/api?module=contract&action=checkverifystatus&guid=nonsense`)).json()
        expect(status).to.deep.equal({ status: '0', message: 'NOTOK', result: 'Unknown UID' })
    })

    it('bounds a compile by its output and memory: an amplifying 2 KB source fails with the reason while the API keeps its memory and answers', async function () {
        const address = await deploy(compile(solc, { language: 'Solidity', sources: { 'Counter.sol': { content: COUNTER } }, settings: { outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } } }, 'Counter.sol', 'Counter'))
        const source = amplifying(18)
        expect(source.length).to.be.below(2_100)
        const pid = api.process.child.pid!
        const before = rssMb(pid)
        const pushed = await verificationResult(address)
        // No contract name: the compiler is asked for every contract, the worst case.
        const res = await v2(`/smart-contracts/${address}/verification/via/standard-input`, {
            method: 'POST',
            body: standardInputForm({ language: 'Solidity', sources: { 'Amplify.sol': { content: source } }, settings: {} }, { compiler_version: V30 }),
        })
        expect(res.status, await res.clone().text()).to.equal(200)
        let peak = before
        let done = false
        const latencies: { health: number[]; chain: number[] } = { health: [], chain: [] }
        const failures: string[] = []
        const probe = async (kind: 'health' | 'chain', url: string) => {
            const start = performance.now()
            const answer = await fetch(url).then((r) => r.status, (err: Error) => err.message)
            latencies[kind].push(performance.now() - start)
            if (answer !== 200) failures.push(`${kind}: ${answer}`)
        }
        const sampling = (async () => {
            while (!done) {
                peak = Math.max(peak, rssMb(pid))
                await Promise.all([probe('health', `${api.explorerUrl}/health`), probe('chain', `${api.explorerUrl}/api/v2/addresses/${address}`)])
                await new Promise((r) => setTimeout(r, 50))
            }
        })()
        const outcome = await pushed().finally(() => (done = true))
        await sampling
        const max = (xs: number[]) => Math.round(Math.max(...xs))
        console.log(`      api RSS ${before.toFixed(0)} MB before, ${peak.toFixed(0)} MB at most during the compile; `
            + `/health at most ${max(latencies.health)} ms, the chain route at most ${max(latencies.chain)} ms over ${latencies.health.length} probes; `
            + `reason: ${outcome.errors?.contract_source_code?.[0]}`)
        // The stated bound: the compile's memory is another process's. A compile in the API's own
        // process (and the parse of its output there) grows it by gigabytes.
        expect(peak - before, 'api RSS growth in MB').to.be.below(200)
        expect(failures).to.deep.equal([])
        expect(latencies.health.length).to.be.above(3)
        expect(outcome.status).to.equal('error')
        expect(outcome.errors.contract_source_code[0]).to.match(/VERIFIER_COMPILE_MEMORY_MB|VERIFIER_OUTPUT_MAX_MB/)
        // A very generous sanity bound, not a timing claim: a blocked event loop stalls for seconds.
        expect(max(latencies.health)).to.be.below(2_000)
        expect(api.process.child.exitCode).to.equal(null)
    })

    it('bounds a multipart body as a whole, before anything else: 413 for many parts each under the cap, declared or streamed', async function () {
        const address = await deploy(compile(solc, standardInput(GOOD), 'contracts/Greeter.sol', 'Greeter'), ['hello'])
        const url = `${api.explorerUrl}/api/v2/smart-contracts/${address}/verification/via/standard-input`
        const fields = { compiler_version: V30 }
        const padded = (pad: number, size: number) => {
            const form = new FormData()
            for (const [k, v] of Object.entries(fields)) form.append(k, v)
            for (let i = 0; i < pad; i++) form.append(`pad${i}`, 'x'.repeat(size))
            // A valid input, whitespace-padded to 4 MB: JSON takes it.
            form.append('files[0]', new Blob([JSON.stringify(standardInput(GOOD)).padEnd(4 << 20, ' ')], { type: 'application/json' }), 'input.json')
            return form
        }
        // The finding: 18 fields (17 of 4 MB) and a 4 MB file, 72 MB, each part under the 5 MB cap.
        const declared = await fetch(url, { method: 'POST', body: padded(17, 4 << 20) })
        expect(declared.status).to.equal(413)
        expect(((await declared.json()) as any).message).to.include('larger than')
        // The same bound when no length is declared: the bytes are counted as they arrive.
        const form = new Response(padded(3, 900_000))
        const type = form.headers.get('content-type')!
        const bytes = new Uint8Array(await form.arrayBuffer())
        expect(bytes.length).to.be.above(5 << 20)
        const streamed = await fetch(url, {
            method: 'POST', headers: { 'content-type': type }, duplex: 'half',
            body: new ReadableStream({
                start(controller) {
                    for (let i = 0; i < bytes.length; i += 64 * 1024) controller.enqueue(bytes.subarray(i, i + 64 * 1024))
                    controller.close()
                },
            }),
        } as RequestInit)
        expect(streamed.status).to.equal(413)
        // More fields than the form takes.
        const many = new FormData()
        for (let i = 0; i < 30; i++) many.append(`f${i}`, 'x')
        expect((await fetch(url, { method: 'POST', body: many })).status).to.equal(413)
        // Etherscan's form is bounded as a whole too.
        const form2 = await fetch(`${api.explorerUrl}/api`, {
            method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ module: 'contract', action: 'verifysourcecode', contractaddress: address, sourceCode: 'x'.repeat(3 << 20), pad: 'x'.repeat(3 << 20) }),
        })
        expect(form2.status).to.equal(413)
        expect((await contractOf(address)).is_verified).to.equal(undefined)
    })

    it('bounds the work: a client past VERIFIER_PER_IP (an IPv4 address, or an IPv6 /64) gets 429, a full queue 503, and a stalled node costs time, not the verification', async function () {
        // A second api on the same database whose node stalls eth_getCode: admitted verifications stay in flight while it does.
        const proxy = new RpcProxy(chain.url)
        await proxy.start()
        proxy.fault = { kind: 'stall', every: 1, only: ['eth_getCode'] }
        const bounded = await startApi({
            databaseUrl, rpcUrl: proxy.url, contracts: chain.contracts,
            env: { TRUST_PROXY: 'true', VERIFIER_THREADS: '1', VERIFIER_QUEUE_LIMIT: '3', VERIFIER_PER_IP: '2' },
        })
        try {
            const input = standardInput(GOOD)
            const address = await deploy(compile(solc, input, 'contracts/Greeter.sol', 'Greeter'), ['hello'])
            const submit = (ip: string) => fetch(`${bounded.explorerUrl}/api`, {
                method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': ip },
                body: new URLSearchParams({
                    module: 'contract', action: 'verifysourcecode', contractaddress: address, sourceCode: JSON.stringify(input),
                    codeformat: 'solidity-standard-json-input', contractname: 'contracts/Greeter.sol:Greeter', compilerversion: V30, constructorArguements: '',
                }),
            })
            const first: any = await (await submit('198.51.100.1')).json()
            const second: any = await (await submit('198.51.100.1')).json()
            expect([first.status, second.status]).to.deep.equal(['1', '1'])
            const third = await submit('198.51.100.1')
            expect(third.status).to.equal(429)
            expect(((await third.json()) as any).result).to.include('At most 2 verifications of one client at once')
            // Three addresses of one IPv6 /64 are one client, as one IPv4 address is.
            const v6a: any = await (await submit('2001:db8:1:2::a')).json()
            const v6b: any = await (await submit('2001:db8:1:2:ffff::b')).json()
            expect([v6a.status, v6b.status]).to.deep.equal(['1', '1'])
            const v6c = await submit('2001:db8:1:2::c')
            expect(v6c.status).to.equal(429)
            expect(((await v6c.json()) as any).result).to.include('At most 2 verifications of one client at once')
            const stranger = await submit('198.51.100.2')
            expect(stranger.status).to.equal(503)
            expect(((await stranger.json()) as any).result).to.include('queue is full')
            const check = async (guid: string): Promise<string> => ((await (await fetch(`${bounded.explorerUrl}/api?module=contract&action=checkverifystatus&guid=${guid}`)).json()) as any).result
            expect(await check(first.result)).to.equal('Pending in queue')

            proxy.heal()
            const outcomes = await waitFor('every outcome', async () => {
                const all = await Promise.all([first, second, v6a, v6b].map((s) => check(s.result)))
                return all.includes('Pending in queue') ? undefined : all
            }, 180_000, 200)
            expect(outcomes.filter((o) => o === 'Pass - Verified')).to.have.length(1)
            for (const o of outcomes.filter((o) => o !== 'Pass - Verified')) expect(o).to.include('Smart-contract already verified.')
            expect((await contractOf(address)).is_fully_verified).to.equal(true)
        } finally {
            await bounded.stop()
            await proxy.stop()
        }
    })
})
