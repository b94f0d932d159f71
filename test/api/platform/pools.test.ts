import { expect } from 'chai'
import { Address, parseEther, parseUnits } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { ammPairAbi } from '../../../abi'
import {
    deployToken, giveStable, nativeBalance, newWallet, PlatformFixture, setNativeBalance, startPlatform, tokenBalance,
    waitForIndexedHead,
} from './support'

const PWD = 'liquidity-password'

describe('wallet platform: pools', function () {
    let f: PlatformFixture
    let wallet: Address
    let gold: Address
    let taxi: Address
    let stable: Address
    const feeSink = privateKeyToAccount(generatePrivateKey()).address

    before(async function () {
        f = await startPlatform({ indexer: true })
        stable = f.chain.contracts.stable
        wallet = await newWallet(f.http, 'lp', PWD)
        await setNativeBalance(f.chain, wallet, parseEther('1000'))
        await giveStable(f.chain, wallet, parseUnits('100000', 6))
        gold = await deployToken(f.http, 'lp', PWD, { tokenName: 'Gold', tokenSymbol: 'GOLD', totalSupply: '1000000', decimals: 8, destinationAddress: wallet })
        taxi = await deployToken(f.http, 'lp', PWD, {
            tokenName: 'Taxi', tokenSymbol: 'TAXI', totalSupply: '1000000', buyingFee: 200, sellingFee: 300, feeAddress: feeSink, destinationAddress: wallet,
        })
    })

    after(async function () {
        await f?.stop()
    })

    const reserves = async (pair: Address, token: Address): Promise<[bigint, bigint]> => {
        const [r0, r1] = await f.chain.client.readContract({ address: pair, abi: ammPairAbi, functionName: 'getReserves' })
        const token0 = await f.chain.client.readContract({ address: pair, abi: ammPairAbi, functionName: 'token0' })
        return token0.toLowerCase() === token.toLowerCase() ? [r0, r1] : [r1, r0]
    }

    let goldPair: Address

    it('add_liquidity creates the pool, approving the router for the caller', async function () {
        const res = await f.http.post('/api/pools/add_liquidity', {
            token1: gold, token2: stable, amount1_desired: '1000', amount2_desired: '2000', amount1_min: '0', amount2_min: '0', address: wallet,
        }, PWD)
        expect(res.status, JSON.stringify(res.body)).to.equal(200)
        const d = res.body.data
        expect(d).to.deep.include({ token1: gold, token2: stable, amount1: '1000', amount2: '2000', amount1_raw: '100000000000', amount2_raw: '2000000000' })
        expect(d.approval_hashes).to.have.length(2)
        goldPair = d.pair
        expect(await reserves(goldPair, gold)).to.deep.equal([parseUnits('1000', 8), parseUnits('2000', 6)])
        expect(BigInt(d.liquidity_raw)).to.equal(await tokenBalance(f.chain, goldPair, wallet))
        expect(BigInt(d.liquidity_raw) > 0n).to.equal(true)
    })

    it('enters at the pool ratio and leaves the rest with the caller; _min floors are enforced', async function () {
        const stableBefore = await tokenBalance(f.chain, stable, wallet)
        const res = await f.http.post('/api/pools/add_liquidity', {
            token1: gold, token2: stable, amount1_desired: '100', amount2_desired: '500', amount1_min: '100', amount2_min: '150', address: wallet,
        }, PWD)
        expect(res.status, JSON.stringify(res.body)).to.equal(200)
        expect(res.body.data).to.deep.include({ amount1: '100', amount2: '200' })
        expect(res.body.data.approval_hashes).to.have.length(0)
        expect(stableBefore - (await tokenBalance(f.chain, stable, wallet))).to.equal(parseUnits('200', 6))

        const goldBefore = await tokenBalance(f.chain, gold, wallet)
        const tight = await f.http.post('/api/pools/add_liquidity', {
            token1: gold, token2: stable, amount1_desired: '100', amount2_desired: '500', amount1_min: '0', amount2_min: '300', address: wallet,
        }, PWD)
        expect(tight.status).to.equal(400)
        expect(tight.body.success).to.equal(false)
        expect(tight.body.error).to.match(/ratio|_min/)
        expect(await tokenBalance(f.chain, gold, wallet)).to.equal(goldBefore)
    })

    it('remove_liquidity returns the tokens: add and remove is a round trip', async function () {
        const goldBefore = await tokenBalance(f.chain, gold, wallet)
        const stableBefore = await tokenBalance(f.chain, stable, wallet)
        const added = await f.http.post('/api/pools/add_liquidity', {
            token1: stable, token2: gold, amount1_desired: '20', amount2_desired: '10', amount1_min: '0', amount2_min: '0', address: wallet,
        }, PWD)
        expect(added.status, JSON.stringify(added.body)).to.equal(200)
        expect(added.body.data).to.deep.include({ amount1: '20', amount2: '10' })
        const minted = BigInt(added.body.data.liquidity_raw)

        const tooTight = await f.http.post('/api/pools/remove_liquidity', {
            token1: stable, token2: gold, liquidity: added.body.data.liquidity, amount1_min: '21', amount2_min: '0', address_to: wallet,
        }, PWD)
        expect(tooTight.status).to.equal(400)
        expect((await tokenBalance(f.chain, goldPair, wallet)) >= minted).to.equal(true)

        const lpBefore = await tokenBalance(f.chain, goldPair, wallet)
        const removed = await f.http.post('/api/pools/remove_liquidity', {
            token1: stable, token2: gold, liquidity: added.body.data.liquidity, amount1_min: '19.99', amount2_min: '9.99', address_to: wallet,
        }, PWD)
        expect(removed.status, JSON.stringify(removed.body)).to.equal(200)
        expect(lpBefore - (await tokenBalance(f.chain, goldPair, wallet))).to.equal(minted)
        const back1 = BigInt(removed.body.data.amount1_raw)
        const back2 = BigInt(removed.body.data.amount2_raw)
        // Minting and burning each round down in the pool's favour: a loss below one LP unit's worth plus a unit.
        const supply = await f.chain.client.readContract({ address: goldPair, abi: ammPairAbi, functionName: 'totalSupply' })
        const [reserveGold, reserveStable] = await reserves(goldPair, gold)
        expect(Number(parseUnits('20', 6) - back1)).to.be.within(0, Number(reserveStable / supply) + 2)
        expect(Number(parseUnits('10', 8) - back2)).to.be.within(0, Number(reserveGold / supply) + 2)
        expect(await tokenBalance(f.chain, stable, wallet)).to.equal(stableBefore - parseUnits('20', 6) + back1)
        expect(await tokenBalance(f.chain, gold, wallet)).to.equal(goldBefore - parseUnits('10', 8) + back2)
    })

    it('add_liquidity_native and remove_liquidity_native pair a token with the native coin', async function () {
        const nativeBefore = await nativeBalance(f.chain, wallet)
        const added = await f.http.post('/api/pools/add_liquidity_native', {
            token: gold, amount_token_desired: '500', amount_native_desired: '50', amount_token_min: '0', amount_native_min: '0', address: wallet,
        }, PWD)
        expect(added.status, JSON.stringify(added.body)).to.equal(200)
        expect(added.body.data).to.deep.include({ token: gold, amount_token: '500', amount_native: '50' })
        expect(nativeBefore - (await nativeBalance(f.chain, wallet))).to.equal(parseEther('50'))
        const pair = added.body.data.pair as Address
        expect(await reserves(pair, gold)).to.deep.equal([parseUnits('500', 8), parseEther('50')])

        const half = (BigInt(added.body.data.liquidity_raw) / 2n).toString()
        const removed = await f.http.post('/api/pools/remove_liquidity_native', {
            token: gold, liquidity: (Number(half) / 1e18).toFixed(18).replace(/0+$/, ''), amount_token_min: '0', amount_native_min: '0', address_to: wallet,
        }, PWD)
        expect(removed.status, JSON.stringify(removed.body)).to.equal(200)
        expect(removed.body.data.method).to.equal('removeLiquidityETH')
        expect(BigInt(removed.body.data.amount_native_raw) > parseEther('24')).to.equal(true)
        expect(BigInt(removed.body.data.amount_token_raw) > parseUnits('249', 8)).to.equal(true)
    })

    it('handles a fee-on-transfer token on both native liquidity routes', async function () {
        const added = await f.http.post('/api/pools/add_liquidity_native', {
            token: taxi, amount_token_desired: '1000', amount_native_desired: '10', amount_token_min: '0', amount_native_min: '0', address: wallet,
        }, PWD)
        expect(added.status, JSON.stringify(added.body)).to.equal(200)
        // The selling fee (3%) is taken on the way into the pair: the pool records what arrived.
        expect(added.body.data.amount_token).to.equal('970')
        expect(await tokenBalance(f.chain, taxi, feeSink)).to.equal(parseEther('30'))

        const taxiBefore = await tokenBalance(f.chain, taxi, wallet)
        const removed = await f.http.post('/api/pools/remove_liquidity_native', {
            token: taxi, liquidity: added.body.data.liquidity, amount_token_min: '0', amount_native_min: '0', address_to: wallet,
        }, PWD)
        expect(removed.status, JSON.stringify(removed.body)).to.equal(200)
        expect(removed.body.data.method).to.equal('removeLiquidityETHSupportingFeeOnTransferTokens')
        expect((await tokenBalance(f.chain, taxi, wallet)) > taxiBefore).to.equal(true)
    })

    it('read routes return [pair, token1, token2] with reserves, LP supply and the user\'s share', async function () {
        await waitForIndexedHead(f)
        const lp = await tokenBalance(f.chain, goldPair, wallet)
        const info = await f.http.get('/api/pools/info_by_tokens', { user_id: 'lp', token1: stable, token2: gold }, PWD)
        expect(info.status, JSON.stringify(info.body)).to.equal(200)
        const [pair, t1, t2] = info.body.data.result
        expect(pair.address).to.equal(goldPair)
        expect(pair.lp_balance_raw).to.equal(lp.toString())
        const supply = await f.chain.client.readContract({ address: goldPair, abi: ammPairAbi, functionName: 'totalSupply' })
        expect(pair.total_supply_raw).to.equal(supply.toString())
        expect(Number(pair.share)).to.be.within(0.99, 1)
        expect(pair.wallets).to.deep.equal([{ address: wallet, lp_balance: pair.lp_balance, lp_balance_raw: pair.lp_balance_raw }])
        expect(t1).to.deep.include({ address: stable, symbol: 'STABLE', decimals: 6 })
        expect(t2).to.deep.include({ address: gold, name: 'Gold', symbol: 'GOLD', decimals: 8 })
        const [reserveGold, reserveStable] = await reserves(goldPair, gold)
        expect(t1.reserve_raw).to.equal(reserveStable.toString())
        expect(t2.reserve_raw).to.equal(reserveGold.toString())

        const byAddress = await f.http.get('/api/pools/info_by_address', { user_id: 'lp', address: goldPair }, PWD)
        expect(byAddress.status).to.equal(200)
        expect(byAddress.body.data.result[0]).to.deep.equal(pair)

        const list = await f.http.get('/api/pools/list', { address: wallet }, PWD)
        expect(list.status).to.equal(200)
        const pairs = list.body.data.result.map((r: any[]) => r[0].address)
        // GOLD/STABLE and GOLD/WNATIVE (half left); TAXI/WNATIVE was removed entirely.
        expect(pairs).to.have.length(2)
        expect(pairs).to.include(goldPair)
        for (const triple of list.body.data.result) {
            expect(triple).to.have.length(3)
            expect(triple[1]).to.have.keys('address', 'name', 'symbol', 'decimals', 'reserve', 'reserve_raw', 'user_amount', 'user_amount_raw')
        }
        const byUser = await f.http.get('/api/pools/list_by_user', { user_id: 'lp' }, PWD)
        expect(byUser.body.data.result).to.deep.equal(list.body.data.result)
        const byUserAndAddress = await f.http.get('/api/pools/list_by_user_and_address', { user_id: 'lp', user_addr: wallet }, PWD)
        expect(byUserAndAddress.body.data.result).to.deep.equal(list.body.data.result)

        const stranger = await newWallet(f.http, 'stranger', PWD)
        expect((await f.http.get('/api/pools/list', { address: stranger }, PWD)).body.data.result).to.deep.equal([])
    })

    it('read routes: 404 for a pair that does not exist or an address that is no pool', async function () {
        const missing = await f.http.get('/api/pools/info_by_tokens', { user_id: 'lp', token1: taxi, token2: stable }, PWD)
        expect(missing.status).to.equal(404)
        expect(missing.body.error).to.match(/does not exist/)
        expect((await f.http.get('/api/pools/info_by_address', { user_id: 'lp', address: stable }, PWD)).status).to.equal(404)
        expect((await f.http.get('/api/pools/info_by_address', { user_id: 'lp', address: wallet }, PWD)).status).to.equal(404)
        const native = await f.http.get('/api/pools/info_by_tokens', { user_id: 'lp', token1: 'NATIVE', token2: gold }, PWD)
        expect(native.status).to.equal(200)
        expect(native.body.data.result[1].address).to.equal(f.chain.contracts.wnative)
    })

    it('answers malformed input on every pool route with a 400', async function () {
        const cases: [string, 'get' | 'post', Record<string, unknown>][] = [
            ['/api/pools/add_liquidity', 'post', { token1: gold, token2: stable, amount1_desired: '1', amount2_desired: '1', amount1_min: '0', amount2_min: '0' }],
            ['/api/pools/add_liquidity', 'post', { token1: gold, token2: gold, amount1_desired: '1', amount2_desired: '1', amount1_min: '0', amount2_min: '0', address: wallet }],
            ['/api/pools/add_liquidity', 'post', { token1: 'NATIVE', token2: gold, amount1_desired: '1', amount2_desired: '1', amount1_min: '0', amount2_min: '0', address: wallet }],
            ['/api/pools/add_liquidity', 'post', { token1: gold, token2: stable, amount1_desired: '1', amount2_desired: '1.0000001', amount1_min: '0', amount2_min: '0', address: wallet }],
            ['/api/pools/add_liquidity', 'post', { token1: gold, token2: stable, amount1_desired: '1', amount2_desired: '1', amount1_min: '2', amount2_min: '0', address: wallet }],
            ['/api/pools/add_liquidity', 'post', { token1: gold, token2: stable, amount1_desired: '10000000', amount2_desired: '1', amount1_min: '0', amount2_min: '0', address: wallet }],
            ['/api/pools/add_liquidity_native', 'post', { token: 'NATIVE', amount_token_desired: '1', amount_native_desired: '1', amount_token_min: '0', amount_native_min: '0', address: wallet }],
            ['/api/pools/add_liquidity_native', 'post', { token: gold, amount_token_desired: 'x', amount_native_desired: '1', amount_token_min: '0', amount_native_min: '0', address: wallet }],
            ['/api/pools/add_liquidity_native', 'post', { token: gold, amount_token_desired: '1', amount_native_desired: '100000', amount_token_min: '0', amount_native_min: '0', address: wallet }],
            ['/api/pools/remove_liquidity', 'post', { token1: gold, token2: stable, liquidity: '-1', amount1_min: '0', amount2_min: '0', address_to: wallet }],
            ['/api/pools/remove_liquidity', 'post', { token1: taxi, token2: stable, liquidity: '1', amount1_min: '0', amount2_min: '0', address_to: wallet }],
            ['/api/pools/remove_liquidity', 'post', { token1: gold, token2: stable, liquidity: '1000000', amount1_min: '0', amount2_min: '0', address_to: wallet }],
            ['/api/pools/remove_liquidity', 'post', { token1: gold, token2: stable, liquidity: '1', amount1_min: '0', amount2_min: '0', address_to: wallet, deadline: 'soon' }],
            ['/api/pools/remove_liquidity_native', 'post', { token: gold, liquidity: '1', amount_token_min: '0', address_to: wallet }],
            ['/api/pools/remove_liquidity_native', 'post', { token: stable, liquidity: '1', amount_token_min: '0', amount_native_min: '0', address_to: wallet }],
            ['/api/pools/list', 'get', { address: 'wallet' }],
            ['/api/pools/list_by_user', 'get', {}],
            ['/api/pools/list_by_user_and_address', 'get', { user_id: 'lp' }],
            ['/api/pools/info_by_address', 'get', { user_id: 'lp', address: '0x00' }],
            ['/api/pools/info_by_tokens', 'get', { user_id: 'lp', token1: gold }],
        ]
        for (const [path, method, input] of cases) {
            const res = method === 'get' ? await f.http.get(path, input as Record<string, string>, PWD) : await f.http.post(path, input, PWD)
            expect(res.status, `${path} ${JSON.stringify(input)}: ${JSON.stringify(res.body)}`).to.equal(400)
            expect(res.body.success).to.equal(false)
            expect(res.body.error).to.be.a('string')
        }
    })

    it('reports a passed deadline as EXPIRED and sends nothing', async function () {
        const before = await f.chain.client.getTransactionCount({ address: wallet })
        const res = await f.http.post('/api/pools/add_liquidity', {
            token1: gold, token2: stable, amount1_desired: '1', amount2_desired: '2', amount1_min: '0', amount2_min: '0', address: wallet, deadline: 1,
        }, PWD)
        expect(res.status).to.equal(400)
        expect(res.body.error).to.match(/^EXPIRED/)
        expect(await f.chain.client.getTransactionCount({ address: wallet })).to.equal(before)
    })
})
