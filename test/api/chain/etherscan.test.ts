import { expect } from 'chai'
import { Address, erc20Abi, getAddress, Hex, keccak256, toHex } from 'viem'
import { Stack } from '../../support/stack'
import { etherscanClient } from './etherscan-client'
import { hex, stack, unknownAddress, unknownHash } from './helpers'

/**
 * The Etherscan-style API at GET /api?module=...&action=...: answers compared with the node and
 * with the indexed rows, page/offset walks, and the error envelope for malformed requests.
 */

const TRANSFER = keccak256(toHex('Transfer(address,address,uint256)'))
const topicOf = (address: string) => `0x${address.slice(2).toLowerCase().padStart(64, '0')}`

const { result, expectError, walkPages } = etherscanClient(async () => (await stack()).explorerUrl)

const unix = (d: Date) => String(Math.floor(d.getTime() / 1000))

describe('chain API: Etherscan-style /api', function () {
    this.timeout(600_000)
    let s: Stack
    let head: number

    before(async () => {
        s = await stack()
        head = (await s.db.query('SELECT max(number) AS n FROM block')).rows[0].n
    })

    describe('routing and the envelope', () => {
        it('no module or action, an unknown module, an unknown action: HTTP 400 with Blockscout\'s messages', async () => {
            await expectError({}, "Params 'module' and 'action' are required parameters", { http: 400 })
            await expectError({ module: 'account' }, "Params 'module' and 'action' are required parameters", { http: 400 })
            await expectError({ module: 'nosuch', action: 'balance' }, 'Unknown module', { http: 400 })
            await expectError({ module: 'account', action: 'nosuch' }, 'Unknown action', { http: 400 })
            await expectError({ module: 'account', action: 'constructor' }, 'Unknown action', { http: 400 })
            await expectError({ module: '__proto__', action: 'toString' }, 'Unknown module', { http: 400 })
        })

        it('module and action are case-insensitive (getLogs = getlogs), unknown extra parameters (apikey) are ignored', async () => {
            const a = await result({ module: 'STATS', action: 'ethSupply', apikey: 'anything' })
            const b = await result({ module: 'stats', action: 'ethsupply' })
            expect(a).to.equal(b)
        })

        it('a repeated parameter is a bad parameter, not a 500', async () => {
            const one = s.account(1).address
            await expectError(`/api?module=account&action=txlist&address=${one}&address=${one}`, 'Invalid address format')
            await expectError(`/api?module=account&action=txlist&address=${one}&page=1&page=2`, 'Invalid `page` param')
        })
    })

    describe('module=account', () => {
        it('balance equals the node\'s balance, for one address (with tag=latest) and a comma list; an unseen address holds "0"', async () => {
            const addresses = [s.account(0).address, s.account(1).address, s.account(2).address, s.tokens.STABLE, s.tokens.WNATIVE]
            for (const address of addresses) {
                const onChain = (await s.client.getBalance({ address: address as Address })).toString()
                expect(await result({ module: 'account', action: 'balance', address }), address).to.equal(onChain)
                expect(await result({ module: 'account', action: 'balance', address: address.toLowerCase(), tag: 'latest' }), address).to.equal(onChain)
            }
            expect(await result({ module: 'account', action: 'balance', address: unknownAddress() })).to.equal('0')
            const list = await result({ module: 'account', action: 'balance', address: addresses.slice(0, 3).join(',') })
            expect(list.map((r: any) => r.account)).to.deep.equal(addresses.slice(0, 3).map((a) => a.toLowerCase()))
            for (const row of list) expect(row.balance).to.equal((await s.client.getBalance({ address: row.account })).toString())
        })

        it('balancemulti: {account, balance, stale} per address in the order asked, at most 20', async () => {
            const addresses = [s.account(3).address, unknownAddress(), s.account(1).address]
            const list = await result({ module: 'account', action: 'balancemulti', address: addresses.join(',') })
            expect(list).to.have.length(3)
            for (const [i, row] of list.entries()) {
                expect(row).to.have.all.keys('account', 'balance', 'stale')
                expect(row.account).to.equal(addresses[i].toLowerCase())
                expect(row.balance).to.equal((await s.client.getBalance({ address: addresses[i] as Address })).toString())
                expect(row.stale).to.equal(false)
            }
            const twenty = Array.from({ length: 20 }, () => unknownAddress())
            expect(await result({ module: 'account', action: 'balancemulti', address: twenty.join(',') })).to.have.length(20)
            await expectError({ module: 'account', action: 'balancemulti', address: [...twenty, unknownAddress()].join(',') }, 'Maximum of 20 addresses are allowed')
        })

        it('balance with garbage: Blockscout\'s messages in the envelope', async () => {
            await expectError({ module: 'account', action: 'balance' }, "Query parameter 'address' is required")
            for (const address of ['0x123', 'zz', `${s.account(1).address},0xnothex`, ',']) {
                await expectError({ module: 'account', action: 'balance', address }, 'Invalid address hash')
            }
            await expectError({ module: 'account', action: 'balance', address: s.account(1).address, tag: 'earliest' }, /Invalid tag/)
        })

        describe('txlist', () => {
            let address: string
            let expected: any[]

            before(async () => {
                // An address with a few hundred transactions: enough pages, all of them within one window.
                const { rows } = await s.db.query(
                    `SELECT "from" AS a, count(*)::int AS n FROM transaction GROUP BY 1 HAVING count(*) BETWEEN 40 AND 3000 ORDER BY 2 DESC LIMIT 1`
                )
                expect(rows, 'an address with 40-3000 transactions in the seeded history').to.have.length(1)
                address = rows[0].a
                expected = (await s.db.query(
                    `SELECT id, block_number, block_hash, timestamp, index, nonce, "from", "to", created_contract, value::text, gas_limit::text,
                            effective_gas_price::text, gas_used::text, status, input
                       FROM transaction WHERE "from" = $1 OR "to" = $1 OR created_contract = $1 ORDER BY block_number, index`,
                    [address]
                )).rows
            })

            it('every transaction of the address, field by field with the rows, ascending with sort=asc and descending by default', async () => {
                const asc = await result({ module: 'account', action: 'txlist', address, sort: 'asc' })
                expect(asc.map((t: any) => t.hash)).to.deep.equal(expected.map((r) => r.id))
                for (const [i, t] of asc.entries()) {
                    const r = expected[i]
                    const what = `txlist[${i}] ${r.id}`
                    expect(t.blockNumber, what).to.equal(String(r.block_number))
                    expect(t.timeStamp, what).to.equal(unix(r.timestamp))
                    expect(t.blockHash, what).to.equal(r.block_hash)
                    expect(t.transactionIndex, what).to.equal(String(r.index))
                    expect(t.nonce, what).to.equal(String(r.nonce))
                    expect(t.from, what).to.equal(r.from)
                    expect(t.to, what).to.equal(r.to ?? '')
                    expect(t.contractAddress, what).to.equal(r.created_contract ?? '')
                    expect(t.value, what).to.equal(r.value)
                    expect(t.gas, what).to.equal(r.gas_limit)
                    expect(t.gasPrice, what).to.equal(r.effective_gas_price)
                    expect(t.gasUsed, what).to.equal(r.gas_used)
                    expect(t.isError, what).to.equal(r.status === 1 ? '0' : '1')
                    expect(t.txreceipt_status, what).to.equal(r.status === 1 ? '1' : '0')
                    expect(t.input, what).to.equal(hex(r.input))
                    expect(t.methodId, what).to.equal(r.input.length >= 4 ? hex(r.input).slice(0, 10) : '0x')
                    expect(t.confirmations, what).to.equal(String(head - r.block_number))
                }
                const desc = await result({ module: 'account', action: 'txlist', address })
                expect(desc.map((t: any) => t.hash)).to.deep.equal(expected.map((r) => r.id).reverse())
            })

            it('matches the node: transaction and receipt fields (cumulativeGasUsed included) for a spread of them', async () => {
                const asc = await result({ module: 'account', action: 'txlist', address, sort: 'asc' })
                const picks = [0, 1, Math.floor(asc.length / 2), asc.length - 2, asc.length - 1]
                for (const i of picks) {
                    const t = asc[i]
                    const [tx, receipt] = await Promise.all([
                        s.client.getTransaction({ hash: t.hash }),
                        s.client.getTransactionReceipt({ hash: t.hash }),
                    ])
                    const what = `txlist ${t.hash}`
                    expect(t.blockNumber, what).to.equal(String(tx.blockNumber))
                    expect(t.blockHash, what).to.equal(tx.blockHash)
                    expect(t.transactionIndex, what).to.equal(String(tx.transactionIndex))
                    expect(t.nonce, what).to.equal(String(tx.nonce))
                    expect(getAddress(t.from), what).to.equal(tx.from && getAddress(tx.from))
                    expect(t.to, what).to.equal(tx.to ? tx.to.toLowerCase() : '')
                    expect(t.value, what).to.equal(tx.value.toString())
                    expect(t.gas, what).to.equal(tx.gas.toString())
                    expect(t.input, what).to.equal(tx.input)
                    expect(t.gasPrice, what).to.equal(receipt.effectiveGasPrice.toString())
                    expect(t.gasUsed, what).to.equal(receipt.gasUsed.toString())
                    expect(t.cumulativeGasUsed, what).to.equal(receipt.cumulativeGasUsed.toString())
                    expect(t.txreceipt_status, what).to.equal(receipt.status === 'success' ? '1' : '0')
                    expect(t.contractAddress, what).to.equal(receipt.contractAddress ? receipt.contractAddress.toLowerCase() : '')
                    const block = await s.client.getBlock({ blockNumber: tx.blockNumber! })
                    expect(t.timeStamp, what).to.equal(block.timestamp.toString())
                }
            })

            it('page/offset walked to the end equals the whole list, in both orders', async () => {
                for (const sort of ['asc', 'desc'] as const) {
                    const rows = await walkPages({ module: 'account', action: 'txlist', address, sort }, 7, 'No transactions found')
                    const ids = expected.map((r) => r.id)
                    expect(rows.map((t) => t.hash), sort).to.deep.equal(sort === 'asc' ? ids : ids.reverse())
                }
            })

            it('startblock/endblock bound the list (inclusive); a far-future endblock means "to the end"', async () => {
                const lo = expected[Math.floor(expected.length / 4)].block_number
                const hi = expected[Math.floor((3 * expected.length) / 4)].block_number
                const inRange = expected.filter((r) => r.block_number >= lo && r.block_number <= hi).map((r) => r.id)
                const got = await result({ module: 'account', action: 'txlist', address, startblock: lo, endblock: hi, sort: 'asc' })
                expect(got.map((t: any) => t.hash)).to.deep.equal(inRange)
                const toEnd = await result({ module: 'account', action: 'txlist', address, startblock: lo, endblock: '99999999999', sort: 'asc' })
                expect(toEnd.map((t: any) => t.hash)).to.deep.equal(expected.filter((r) => r.block_number >= lo).map((r) => r.id))
                await expectError({ module: 'account', action: 'txlist', address, startblock: head + 1 }, 'No transactions found', { result: [] })
            })

            it('an address without transactions: "No transactions found" with []; garbage parameters: the envelope, HTTP 200', async () => {
                await expectError({ module: 'account', action: 'txlist', address: unknownAddress() }, 'No transactions found', { result: [] })
                await expectError({ module: 'account', action: 'txlist' }, "Query parameter 'address' is required")
                await expectError({ module: 'account', action: 'txlist', address: '0xabc' }, 'Invalid address format')
                for (const [key, value] of [['page', 'x'], ['page', '0'], ['page', '-1'], ['offset', '1.5'], ['offset', '0'], ['sort', 'up'], ['startblock', 'latest'], ['endblock', '-5']]) {
                    await expectError({ module: 'account', action: 'txlist', address, [key]: value }, `Invalid \`${key}\` param`)
                }
                await expectError({ module: 'account', action: 'txlist', address, page: 2, offset: 10_000 },
                    'Result window is too large, PageNo x Offset size must be less than or equal to 10000')
                await expectError({ module: 'account', action: 'txlist', address, page: 1, offset: 10_001 },
                    'Result window is too large, PageNo x Offset size must be less than or equal to 10000')
                expect(await result({ module: 'account', action: 'txlist', address, page: 1, offset: 10_000 })).to.have.length(expected.length)
            })
        })

        describe('txlistinternal', () => {
            it('a transaction\'s frames below the top-level call, and an address\'s, match the internal_transaction rows (needs the tracing indexer)', async () => {
                const { rows: [some] } = await s.db.query(
                    `SELECT transaction_hash, count(*)::int AS n FROM internal_transaction WHERE index > 0 GROUP BY 1 ORDER BY 2 DESC LIMIT 1`
                )
                expect(some, 'internal_transaction holds call frames below the top-level call (the indexer traces transactions)').to.not.equal(undefined)
                const frames = (await s.db.query(
                    `SELECT * FROM internal_transaction WHERE transaction_hash = $1 AND index > 0 ORDER BY index`, [some.transaction_hash]
                )).rows
                const got = await result({ module: 'account', action: 'txlistinternal', txhash: some.transaction_hash, include_zero_value: 'true', sort: 'asc' })
                expect(got).to.have.length(frames.length)
                const tx = await s.client.getTransaction({ hash: some.transaction_hash })
                for (const [i, f] of frames.entries()) {
                    const g = got[i]
                    const what = `frame ${f.index} of ${some.transaction_hash}`
                    expect(g.transactionHash, what).to.equal(some.transaction_hash)
                    expect(g.blockNumber, what).to.equal(String(tx.blockNumber))
                    expect(g.index, what).to.equal(String(f.index))
                    expect(g.traceId, what).to.equal(f.trace_address.join('_'))
                    expect(g.from, what).to.equal(f.from)
                    expect(g.to, what).to.equal(f.to ?? '')
                    expect(g.contractAddress, what).to.equal(f.created_contract ?? '')
                    expect(g.value, what).to.equal(String(f.value))
                    expect(g.isError, what).to.equal(f.error ? '1' : '0')
                    const isCall = ['call', 'delegatecall', 'staticcall', 'callcode'].includes(f.type)
                    expect(g.type, what).to.equal(isCall ? 'call' : f.type)
                    expect(g.callType, what).to.equal(isCall ? f.type : '')
                    // a first-level frame is called by the transaction's target
                    if (f.trace_address.length === 1 && tx.to) expect(g.from, what).to.equal(tx.to.toLowerCase())
                }
                // Without include_zero_value the calls that move no coin are left out.
                const valued = frames.filter((f) => !['call', 'delegatecall', 'staticcall', 'callcode'].includes(f.type) || BigInt(f.value) > 0n)
                if (valued.length === 0) {
                    await expectError({ module: 'account', action: 'txlistinternal', txhash: some.transaction_hash }, 'No internal transactions found', { result: [] })
                } else {
                    const dflt = await result({ module: 'account', action: 'txlistinternal', txhash: some.transaction_hash, sort: 'asc' })
                    expect(dflt.map((g: any) => g.index)).to.deep.equal(valued.map((f) => String(f.index)))
                }

                // Neither address nor txhash: every frame of the block range.
                const ofBlock = (await s.db.query(
                    `SELECT id FROM internal_transaction WHERE block_number = $1 AND index > 0 ORDER BY id`, [Number(tx.blockNumber)]
                )).rows
                const byBlock = await result({ module: 'account', action: 'txlistinternal', startblock: Number(tx.blockNumber), endblock: Number(tx.blockNumber), include_zero_value: 'true', sort: 'asc' })
                expect(byBlock.map((g: any) => `${g.transactionHash}/${g.index}`)).to.have.length(ofBlock.length)
                expect(byBlock.every((g: any) => g.blockNumber === String(tx.blockNumber))).to.equal(true)

                const { rows: [busy] } = await s.db.query(
                    `SELECT "from" AS a FROM internal_transaction WHERE index > 0 GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`
                )
                const mine = (await s.db.query(
                    `SELECT id FROM internal_transaction WHERE index > 0 AND ("from" = $1 OR "to" = $1 OR created_contract = $1) ORDER BY id LIMIT 10000`, [busy.a]
                )).rows
                const walked = await walkPages({ module: 'account', action: 'txlistinternal', address: busy.a, include_zero_value: 'true', sort: 'asc' }, 25, 'No internal transactions found')
                expect(walked).to.have.length(mine.length)
                for (const g of walked) expect([g.from, g.to, g.contractAddress], JSON.stringify(g)).to.include(busy.a)
            })

            it('unknown transaction or address: "No internal transactions found" with []; garbage: the envelope', async () => {
                await expectError({ module: 'account', action: 'txlistinternal', txhash: unknownHash() }, 'No internal transactions found', { result: [] })
                await expectError({ module: 'account', action: 'txlistinternal', address: unknownAddress() }, 'No internal transactions found', { result: [] })
                await expectError({ module: 'account', action: 'txlistinternal', txhash: '0x1234' }, 'Invalid txhash format')
                await expectError({ module: 'account', action: 'txlistinternal', address: 'nope' }, 'Invalid address format')
                await expectError({ module: 'account', action: 'txlistinternal', address: unknownAddress(), include_zero_value: 'yes' }, 'Invalid `include_zero_value` param')
            })
        })

        describe('tokentx', () => {
            it('ERC-20 transfers of an address in one token equal the node\'s Transfer logs, in chain order, walked by page', async () => {
                const holder = s.account(3).address.toLowerCase()
                const token = s.tokens.GOLD
                const onChain = (await s.client.request({
                    method: 'eth_getLogs',
                    params: [{ address: token, fromBlock: '0x0', toBlock: 'latest', topics: [TRANSFER] }],
                } as any)) as any[]
                const mine = onChain.filter((l) => l.topics[1] === topicOf(holder) || l.topics[2] === topicOf(holder))
                expect(mine.length, 'GOLD transfers of account 3').to.be.greaterThan(0)
                const got = await walkPages({ module: 'account', action: 'tokentx', address: holder, contractaddress: token, sort: 'asc' }, 3, 'No token transfers found')
                expect(got).to.have.length(mine.length)
                const { rows: [gold] } = await s.db.query('SELECT name, symbol, decimals FROM token WHERE id = $1', [token.toLowerCase()])
                for (const [i, l] of mine.entries()) {
                    const t = got[i]
                    const what = `tokentx[${i}] ${l.transactionHash}`
                    expect(t.hash, what).to.equal(l.transactionHash)
                    expect(t.blockNumber, what).to.equal(String(BigInt(l.blockNumber)))
                    expect(t.blockHash, what).to.equal(l.blockHash)
                    expect(t.logIndex, what).to.equal(String(BigInt(l.logIndex)))
                    expect(t.transactionIndex, what).to.equal(String(BigInt(l.transactionIndex)))
                    expect(t.from, what).to.equal(`0x${l.topics[1].slice(26)}`)
                    expect(t.to, what).to.equal(`0x${l.topics[2].slice(26)}`)
                    expect(t.value, what).to.equal(BigInt(l.data).toString())
                    expect(t.contractAddress, what).to.equal(token.toLowerCase())
                    expect(t.tokenName, what).to.equal(gold.name)
                    expect(t.tokenSymbol, what).to.equal(gold.symbol)
                    expect(t.tokenDecimal, what).to.equal(String(gold.decimals))
                    expect(t.confirmations, what).to.equal(String(head - Number(BigInt(l.blockNumber))))
                }
                const tx = await s.client.getTransaction({ hash: got[0].hash })
                expect(got[0].nonce).to.equal(String(tx.nonce))
                expect(got[0].input).to.equal(tx.input)
                expect(got[0].gas).to.equal(tx.gas.toString())
                const desc = await result({ module: 'account', action: 'tokentx', address: holder, contractaddress: token })
                expect(desc.map((t: any) => `${t.hash}/${t.logIndex}`)).to.deep.equal(got.map((t) => `${t.hash}/${t.logIndex}`).reverse())
            })

            it('by address alone (every ERC-20) and by contract alone equal the token_transfer rows', async () => {
                const holder = s.account(3).address.toLowerCase()
                const byAddress = (await s.db.query(
                    `SELECT transaction_hash, log_index FROM token_transfer WHERE token_type = 'ERC-20' AND ("from" = $1 OR "to" = $1)
                      ORDER BY block_number, log_index`, [holder]
                )).rows.map((r) => `${r.transaction_hash}/${r.log_index}`)
                const got = await result({ module: 'account', action: 'tokentx', address: holder, sort: 'asc' })
                expect(got.map((t: any) => `${t.hash}/${t.logIndex}`)).to.deep.equal(byAddress)
                const byToken = (await s.db.query(
                    `SELECT transaction_hash, log_index FROM token_transfer WHERE token = $1 ORDER BY block_number, log_index LIMIT 10000`, [s.tokens.SILVER.toLowerCase()]
                )).rows.map((r) => `${r.transaction_hash}/${r.log_index}`)
                const silver = await result({ module: 'account', action: 'tokentx', contractaddress: s.tokens.SILVER, sort: 'asc' })
                expect(silver.map((t: any) => `${t.hash}/${t.logIndex}`)).to.deep.equal(byToken)
            })

            it('ERC-721 transfers are not listed; unknowns and garbage answer the envelope', async () => {
                await expectError({ module: 'account', action: 'tokentx', contractaddress: s.extras.nft.address }, 'No token transfers found', { result: [] })
                await expectError({ module: 'account', action: 'tokentx', address: unknownAddress() }, 'No token transfers found', { result: [] })
                await expectError({ module: 'account', action: 'tokentx' }, 'Query parameter address or contractaddress is required')
                await expectError({ module: 'account', action: 'tokentx', address: '0x12' }, 'Invalid address format')
                await expectError({ module: 'account', action: 'tokentx', contractaddress: 'GOLD' }, 'Invalid contract address format')
            })
        })

        it('tokenbalance equals balanceOf on the node; an unseen holder holds "0"; missing or bad parameters answer the envelope', async () => {
            for (const [token, holder] of [[s.tokens.GOLD, s.account(3).address], [s.tokens.STABLE, s.account(0).address], [s.tokens.STABLE, s.extras.disperse.recipients[0]], [s.tokens.SILVER, unknownAddress()]]) {
                const onChain = await s.client.readContract({ address: token as Address, abi: erc20Abi, functionName: 'balanceOf', args: [holder as Address] })
                expect(await result({ module: 'account', action: 'tokenbalance', contractaddress: token, address: holder }), `${token} ${holder}`).to.equal(onChain.toString())
            }
            await expectError({ module: 'account', action: 'tokenbalance' }, 'Required query parameters missing: contractaddress, address')
            await expectError({ module: 'account', action: 'tokenbalance', address: s.account(3).address }, 'Required query parameters missing: contractaddress')
            await expectError({ module: 'account', action: 'tokenbalance', contractaddress: s.tokens.GOLD }, 'Required query parameters missing: address')
            await expectError({ module: 'account', action: 'tokenbalance', contractaddress: 'x', address: s.account(3).address }, 'Invalid contractaddress format')
            await expectError({ module: 'account', action: 'tokenbalance', contractaddress: s.tokens.GOLD, address: 'y' }, 'Invalid address format')
        })
    })

    describe('module=contract', () => {
        it('getabi of a verified contract is its ABI as a JSON string; getsourcecode carries the verified_contract row', async () => {
            const { rows } = await s.db.query('SELECT * FROM verified_contract WHERE id = $1', [s.tokens.GOLD.toLowerCase()])
            expect(rows, 'GOLD is verified by the indexer').to.have.length(1)
            const row = rows[0]
            const abi = await result({ module: 'contract', action: 'getabi', address: s.tokens.GOLD })
            expect(abi).to.be.a('string')
            expect(JSON.parse(abi)).to.deep.equal(row.abi)
            const [source] = await result({ module: 'contract', action: 'getsourcecode', address: s.tokens.GOLD })
            expect(JSON.parse(source.ABI)).to.deep.equal(row.abi)
            expect(source.ContractName).to.equal(row.name)
            expect(source.CompilerVersion).to.equal(row.compiler_version)
            expect(source.EVMVersion).to.equal(row.evm_version)
            expect(source.OptimizationUsed).to.equal(row.optimization_enabled ? '1' : '0')
            expect(source.Runs).to.equal(String(row.optimization_runs ?? 0))
            expect(source.ConstructorArguments).to.equal((row.constructor_arguments ?? '').replace(/^0x/, ''))
            expect(source.FileName).to.equal(row.source_name)
            expect(source.Proxy).to.equal('0')
            // The indexer's verifications are full matches, of the licence its main source declares.
            expect(source.IsPartiallyVerified).to.equal('false')
            expect(source.LicenseType).to.equal(/SPDX-License-Identifier:\s*([^\s*]+)/.exec(row.sources[row.source_name])?.[1] ?? 'None')
            const files = Object.entries(row.sources as Record<string, string>)
            if (files.length === 1) {
                expect(source.SourceCode).to.equal(files[0][1])
            } else {
                expect(source.SourceCode.startsWith('{{')).to.equal(true)
                const input = JSON.parse(source.SourceCode.slice(1, -1))
                expect(Object.keys(input.sources).sort()).to.deep.equal(files.map(([p]) => p).sort())
                for (const [path, content] of files) expect(input.sources[path].content, path).to.equal(content)
            }
            // the constructor arguments are the tail of the creation input on the chain
            if (row.constructor_arguments) {
                const { rows: [created] } = await s.db.query('SELECT creation_transaction FROM address WHERE id = $1', [s.tokens.GOLD.toLowerCase()])
                const tx = await s.client.getTransaction({ hash: created.creation_transaction })
                expect(tx.input.endsWith(source.ConstructorArguments)).to.equal(true)
            }
        })

        it('an unverified contract: getabi "Contract source code not verified" (status 0), getsourcecode a record saying so (status 1)', async () => {
            const address = s.extras.unverified.address
            await expectError({ module: 'contract', action: 'getabi', address }, 'Contract source code not verified')
            const [source] = await result({ module: 'contract', action: 'getsourcecode', address })
            expect(source.ABI).to.equal('Contract source code not verified')
            expect(source.SourceCode).to.equal('')
            expect(source.ContractName).to.equal('')
            await expectError({ module: 'contract', action: 'getabi' }, 'Query parameter address is required')
            await expectError({ module: 'contract', action: 'getsourcecode', address: '0xzz' }, 'Invalid address hash')
        })
    })

    describe('module=block', () => {
        it('getblocknobytime: the last block at or before the time, the first at or after it, checked against the node', async () => {
            const { rows } = await s.db.query(
                `SELECT number, timestamp FROM block WHERE number IN (1, $1, $2, $3) ORDER BY number`, [Math.floor(head / 3), Math.floor(head / 2), head]
            )
            for (const row of rows) {
                const t = BigInt(unix(row.timestamp))
                const before = Number(await result({ module: 'block', action: 'getblocknobytime', timestamp: String(t), closest: 'before' }))
                const after = Number(await result({ module: 'block', action: 'getblocknobytime', timestamp: String(t), closest: 'after' }))
                const b = await s.client.getBlock({ blockNumber: BigInt(before) })
                expect(b.timestamp <= t, `before ${t}: block ${before}`).to.equal(true)
                if (before < head) expect((await s.client.getBlock({ blockNumber: BigInt(before + 1) })).timestamp > t, `block after ${before}`).to.equal(true)
                const a = await s.client.getBlock({ blockNumber: BigInt(after) })
                expect(a.timestamp >= t, `after ${t}: block ${after}`).to.equal(true)
                if (after > 0) expect((await s.client.getBlock({ blockNumber: BigInt(after - 1) })).timestamp < t, `block before ${after}`).to.equal(true)
                expect(after).to.be.at.most(row.number)
                expect(before).to.be.at.least(row.number)
            }
            const last = await s.client.getBlock({ blockNumber: BigInt(head) })
            expect(await result({ module: 'block', action: 'getblocknobytime', timestamp: String(last.timestamp + 1_000_000n), closest: 'before' })).to.equal(String(head))
            await expectError({ module: 'block', action: 'getblocknobytime', timestamp: String(last.timestamp + 1_000_000n), closest: 'after' }, 'Block does not exist')
            await expectError({ module: 'block', action: 'getblocknobytime', timestamp: '0', closest: 'before' }, 'Block does not exist')
        })

        it('getblocknobytime with missing or bad parameters answers the envelope', async () => {
            await expectError({ module: 'block', action: 'getblocknobytime', closest: 'before' }, "Query parameter 'timestamp' is required")
            await expectError({ module: 'block', action: 'getblocknobytime', timestamp: '1700000000' }, "Query parameter 'closest' is required")
            await expectError({ module: 'block', action: 'getblocknobytime', timestamp: 'yesterday', closest: 'before' }, 'Invalid `timestamp` param')
            await expectError({ module: 'block', action: 'getblocknobytime', timestamp: '1700000000', closest: 'nearest' }, 'Invalid `closest` param')
        })

        it('getblockcountdown keeps answering from the indexed head; a passed block or a bad number is an envelope error', async () => {
            const countdown = await result({ module: 'block', action: 'getblockcountdown', blockno: String(head + 10) })
            expect(countdown.CurrentBlock).to.equal(String(head))
            expect(countdown.RemainingBlock).to.equal('10')
            await expectError({ module: 'block', action: 'getblockcountdown', blockno: String(head) }, 'Error! Block number already pass')
            await expectError({ module: 'block', action: 'getblockcountdown', blockno: 'soon' }, 'Invalid block number')
            await expectError({ module: 'block', action: 'getblockcountdown' }, "Query parameter 'blockno' is required")
        })
    })

    describe('module=logs', () => {
        it('getLogs by address equals eth_getLogs, field by field, walked with page/offset', async () => {
            const to = Math.min(head, 400)
            const nodeLogs = (await s.client.request({
                method: 'eth_getLogs', params: [{ address: s.tokens.STABLE, fromBlock: '0x0', toBlock: toHex(to) }],
            } as any)) as any[]
            expect(nodeLogs.length, 'STABLE logs in the first blocks').to.be.greaterThan(3)
            const capped = nodeLogs.slice(0, 10_000)
            const got = await walkPages({ module: 'logs', action: 'getLogs', address: s.tokens.STABLE, fromBlock: 0, toBlock: to }, 97, 'No logs found')
            expect(got).to.have.length(capped.length)
            const blocks = new Map<string, bigint>()
            for (const [i, l] of capped.entries()) {
                const g = got[i]
                const what = `log ${i} (${l.transactionHash}/${l.logIndex})`
                expect(g.address, what).to.equal(l.address.toLowerCase())
                expect(g.topics, what).to.deep.equal(l.topics)
                expect(g.data, what).to.equal(l.data)
                expect(g.blockNumber, what).to.equal(l.blockNumber)
                expect(g.blockHash, what).to.equal(l.blockHash)
                expect(g.logIndex, what).to.equal(l.logIndex)
                expect(g.transactionHash, what).to.equal(l.transactionHash)
                expect(g.transactionIndex, what).to.equal(l.transactionIndex)
                if (i < 5) {
                    if (!blocks.has(l.blockNumber)) blocks.set(l.blockNumber, (await s.client.getBlock({ blockNumber: BigInt(l.blockNumber) })).timestamp)
                    expect(g.timeStamp, what).to.equal(toHex(blocks.get(l.blockNumber)!))
                    const receipt = await s.client.getTransactionReceipt({ hash: l.transactionHash })
                    expect(g.gasUsed, what).to.equal(toHex(receipt.gasUsed))
                    expect(g.gasPrice, what).to.equal(toHex(receipt.effectiveGasPrice))
                }
            }
        })

        it('topic filters: topic0 and topic2 (and), topic1 or topic2 (or), topics without an address — each equals eth_getLogs', async () => {
            const holder = s.account(3).address
            const logsOf = async (filter: object) => ((await s.client.request({ method: 'eth_getLogs', params: [{ fromBlock: '0x0', toBlock: 'latest', ...filter }] } as any)) as any[])
            const key = (l: any) => `${l.transactionHash}/${BigInt(l.logIndex)}`

            const toHolder = await logsOf({ address: s.tokens.GOLD, topics: [TRANSFER, null, topicOf(holder)] })
            expect(toHolder.length).to.be.greaterThan(0)
            const gotAnd = await result({ module: 'logs', action: 'getLogs', address: s.tokens.GOLD, fromBlock: 0, toBlock: 'latest', topic0: TRANSFER, topic2: topicOf(holder), topic0_2_opr: 'and' })
            expect(gotAnd.map(key)).to.deep.equal(toHolder.slice(0, 1000).map(key))

            const fromHolder = await logsOf({ address: s.tokens.GOLD, topics: [TRANSFER, topicOf(holder)] })
            const either = [...fromHolder, ...toHolder]
                .filter((l, i, all) => all.findIndex((m) => key(m) === key(l)) === i)
                .sort((a, b) => Number(BigInt(a.blockNumber) - BigInt(b.blockNumber)) || Number(BigInt(a.logIndex) - BigInt(b.logIndex)))
            const gotOr = await result({ module: 'logs', action: 'getLogs', address: s.tokens.GOLD, fromBlock: 0, toBlock: 'latest', topic1: topicOf(holder), topic2: topicOf(holder), topic1_2_opr: 'or' })
            expect(gotOr.map(key)).to.deep.equal(either.slice(0, 1000).map(key))

            const anyToken = await logsOf({ topics: [TRANSFER, null, topicOf(holder)] })
            const gotAnyToken = await result({ module: 'logs', action: 'getlogs', topic0: TRANSFER, topic2: topicOf(holder), topic0_2_opr: 'and' })
            expect(gotAnyToken.map(key)).to.deep.equal(anyToken.slice(0, 1000).map(key))
            expect(new Set(gotAnyToken.map((l: any) => l.address)).size, 'transfers to account 3 of more than one token').to.be.greaterThan(1)
        })

        it('at most 1,000 logs per request; missing or bad parameters answer the envelope', async () => {
            await expectError({ module: 'logs', action: 'getLogs', fromBlock: 0, toBlock: 'latest' }, 'Required query parameters missing: address and/or topic{x}')
            await expectError({ module: 'logs', action: 'getLogs', address: s.tokens.STABLE, offset: 1001 }, 'Offset must be at most 1000')
            await expectError({ module: 'logs', action: 'getLogs', address: s.tokens.STABLE, fromBlock: 'yesterday' }, 'Invalid fromBlock format')
            await expectError({ module: 'logs', action: 'getLogs', address: s.tokens.STABLE, toBlock: '-1' }, 'Invalid toBlock format')
            await expectError({ module: 'logs', action: 'getLogs', address: '0x1' }, 'Invalid address format')
            await expectError({ module: 'logs', action: 'getLogs', topic0: '0x1234' }, 'Invalid topic0 format')
            await expectError({ module: 'logs', action: 'getLogs', topic0: TRANSFER, topic1: TRANSFER, topic0_1_opr: 'xor' }, 'Invalid topic0_1_opr format')
            await expectError({ module: 'logs', action: 'getLogs', address: unknownAddress() }, 'No logs found', { result: [] })
            const all = await result({ module: 'logs', action: 'getLogs', topic0: TRANSFER })
            const total = (await s.db.query('SELECT count(*)::int AS n FROM log WHERE topic0 = $1', [TRANSFER])).rows[0].n
            expect(all).to.have.length(Math.min(total, 1000))
        })
    })

    describe('module=stats', () => {
        it('tokensupply equals totalSupply() on the node; unknown or bad contract addresses answer the envelope', async () => {
            for (const token of [s.tokens.GOLD, s.tokens.STABLE, s.tokens.WNATIVE]) {
                const onChain = await s.client.readContract({ address: token as Address, abi: erc20Abi, functionName: 'totalSupply' })
                expect(await result({ module: 'stats', action: 'tokensupply', contractaddress: token }), token).to.equal(onChain.toString())
            }
            await expectError({ module: 'stats', action: 'tokensupply', contractaddress: unknownAddress() }, 'Contract address not found')
            await expectError({ module: 'stats', action: 'tokensupply' }, 'Query parameter contract address is required')
            await expectError({ module: 'stats', action: 'tokensupply', contractaddress: 'gold' }, 'Invalid contract address format')
        })

        it('ethsupply is the sum of the indexed addresses\' balances, which equals the node\'s balances of those addresses', async () => {
            // The answer and the rows are compared at one indexed head: a block indexed between the
            // two reads would change the rows, not make the answer wrong.
            const head = async () => (await s.db.query('SELECT last_block FROM chain_counters')).rows[0].last_block
            let supply: string, rows: { id: Address; balance: string }[], at: number
            do {
                at = await head()
                supply = await result({ module: 'stats', action: 'ethsupply' })
                rows = (await s.db.query('SELECT id, balance::text FROM address')).rows
            } while (await head() !== at)
            const sum = rows.reduce((acc, r) => acc + BigInt(r.balance), 0n)
            expect(supply).to.equal(sum.toString())
            let onChain = 0n
            for (let i = 0; i < rows.length; i += 50) {
                const balances = await Promise.all(rows.slice(i, i + 50).map((r) => s.client.getBalance({ address: r.id, blockNumber: BigInt(at) })))
                onChain += balances.reduce((a, b) => a + b, 0n)
            }
            expect(supply).to.equal(onChain.toString())
        })
    })

    describe('module=transaction', () => {
        it('gettxreceiptstatus and getstatus follow the receipt; unknown hashes and garbage answer as Blockscout', async () => {
            const hashes: Hex[] = [s.extras.feeCoinTransfer, s.extras.feeTokenTransfer]
            const { rows: reverted } = await s.db.query('SELECT id FROM transaction WHERE status = 0 LIMIT 2')
            hashes.push(...reverted.map((r) => r.id as Hex))
            for (const hash of hashes) {
                const receipt = await s.client.getTransactionReceipt({ hash })
                const success = receipt.status === 'success'
                expect(await result({ module: 'transaction', action: 'gettxreceiptstatus', txhash: hash }), hash).to.deep.equal({ status: success ? '1' : '0' })
                const status = await result({ module: 'transaction', action: 'getstatus', txhash: hash })
                expect(status.isError, hash).to.equal(success ? '0' : '1')
                if (success) expect(status.errDescription).to.equal('')
                else expect(status.errDescription).to.be.a('string').and.not.equal('')
            }
            expect(await result({ module: 'transaction', action: 'gettxreceiptstatus', txhash: unknownHash() })).to.deep.equal({ status: '' })
            await expectError({ module: 'transaction', action: 'gettxreceiptstatus' }, 'Query parameter txhash is required')
            await expectError({ module: 'transaction', action: 'getstatus', txhash: '0xabc' }, 'Invalid txhash format')
        })
    })
})
