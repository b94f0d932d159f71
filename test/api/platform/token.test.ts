import { expect } from 'chai'
import { Address, Hex, parseUnits } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { platformTokenAbi } from '../../../abi'
import { newWallet, PlatformFixture, startPlatform, tokenBalance } from './support'

const PWD = 'token-user-password'

describe('wallet platform: tokens', function () {
    let f: PlatformFixture
    let wallet: Address
    const destination = privateKeyToAccount(generatePrivateKey()).address
    const feeSink = privateKeyToAccount(generatePrivateKey()).address

    before(async function () {
        f = await startPlatform()
        wallet = await newWallet(f.http, 'minter', PWD)
    })

    after(async function () {
        await f?.stop()
    })

    const read = (address: Address, functionName: 'name' | 'symbol' | 'decimals' | 'totalSupply' | 'buyingFee' | 'sellingFee' | 'feeAddress' | 'mintable' | 'owner' | 'description') =>
        f.chain.client.readContract({ address, abi: platformTokenAbi, functionName } as any) as Promise<any>

    it('POST /api/token/deploy deploys a PlatformToken and moves the supply to destinationAddress', async function () {
        const res = await f.http.post('/api/token/deploy', {
            user_id: 'minter', tokenName: 'Gold', tokenSymbol: 'GOLD', tokenDescription: 'shiny', totalSupply: 1_000_000,
            decimals: 8, buyingFee: 200, sellingFee: 300, feeAddress: feeSink, mintable: true, destinationAddress: destination,
        }, PWD)
        expect(res.status, JSON.stringify(res.body)).to.equal(201)
        const { contractAddress, transactionHash, transferHash } = res.body.data
        expect(res.body.success).to.equal(true)
        const deployReceipt = await f.chain.client.getTransactionReceipt({ hash: transactionHash })
        expect(deployReceipt.contractAddress?.toLowerCase()).to.equal(contractAddress.toLowerCase())
        const transferReceipt = await f.chain.client.getTransactionReceipt({ hash: transferHash })
        expect(transferReceipt.status).to.equal('success')
        expect(await read(contractAddress, 'name')).to.equal('Gold')
        expect(await read(contractAddress, 'symbol')).to.equal('GOLD')
        expect(await read(contractAddress, 'description')).to.equal('shiny')
        expect(await read(contractAddress, 'decimals')).to.equal(8)
        expect(await read(contractAddress, 'buyingFee')).to.equal(200)
        expect(await read(contractAddress, 'sellingFee')).to.equal(300)
        expect(await read(contractAddress, 'feeAddress')).to.equal(feeSink)
        expect(await read(contractAddress, 'mintable')).to.equal(true)
        expect(await read(contractAddress, 'owner')).to.equal(wallet)
        expect(await tokenBalance(f.chain, contractAddress, destination)).to.equal(parseUnits('1000000', 8))
        expect(await tokenBalance(f.chain, contractAddress, wallet)).to.equal(0n)
    })

    it('defaults to 18 decimals, no fees, not mintable, and takes a decimal totalSupply string', async function () {
        const res = await f.http.post('/api/token/deploy', {
            user_id: 'minter', user_pwd: PWD, tokenName: 'Plain', tokenSymbol: 'PLN', totalSupply: '12.5', destinationAddress: destination,
        })
        expect(res.status, JSON.stringify(res.body)).to.equal(201)
        const token = res.body.data.contractAddress
        expect(await read(token, 'decimals')).to.equal(18)
        expect(await read(token, 'buyingFee')).to.equal(0)
        expect(await read(token, 'mintable')).to.equal(false)
        expect(await tokenBalance(f.chain, token, destination)).to.equal(parseUnits('12.5', 18))
    })

    it('deploys from a named wallet of the user, not from another user\'s', async function () {
        const second = await newWallet(f.http, 'minter', PWD)
        const res = await f.http.post('/api/token/deploy', { user_id: 'minter', address: second, tokenName: 'Two', tokenSymbol: 'TWO', totalSupply: '1', destinationAddress: destination }, PWD)
        expect(res.status).to.equal(201)
        expect(await read(res.body.data.contractAddress, 'owner')).to.equal(second)
        const other = await newWallet(f.http, 'someone-else', 'someone-else-pwd')
        const refused = await f.http.post('/api/token/deploy', { user_id: 'minter', address: other, tokenName: 'Two', tokenSymbol: 'TWO', totalSupply: '1', destinationAddress: destination }, PWD)
        expect(refused.status).to.equal(401)
    })

    it('validates the 2.7 parameters with a 400 naming the problem', async function () {
        const base = { user_id: 'minter', tokenName: 'Bad', tokenSymbol: 'BAD', totalSupply: '100', destinationAddress: destination }
        const cases: [Record<string, unknown>, RegExp][] = [
            [{ decimals: 19 }, /decimals/],
            [{ decimals: -1 }, /decimals/],
            [{ decimals: 2.5 }, /decimals/],
            [{ buyingFee: 2501, feeAddress: feeSink }, /buyingFee/],
            [{ sellingFee: -5, feeAddress: feeSink }, /sellingFee/],
            [{ sellingFee: 100 }, /feeAddress is required/],
            [{ feeAddress: '0x0000000000000000000000000000000000000000', buyingFee: 1 }, /feeAddress/],
            [{ destinationAddress: destination.toLowerCase().slice(0, 40) }, /destinationAddress/],
            [{ destinationAddress: undefined }, /destinationAddress is required/],
            [{ tokenName: '' }, /tokenName/],
            [{ tokenSymbol: 'X'.repeat(17) }, /tokenSymbol/],
            [{ tokenName: undefined }, /tokenName is required/],
            [{ totalSupply: '0' }, /greater than 0/],
            [{ totalSupply: '1.5', decimals: 0 }, /fractional digits/],
            [{ totalSupply: 'lots' }, /totalSupply/],
            [{ mintable: 'yes' }, /mintable/],
            [{ address: 'nope' }, /address/],
        ]
        for (const [patch, message] of cases) {
            const res = await f.http.post('/api/token/deploy', { ...base, ...patch }, PWD)
            expect(res.status, JSON.stringify(patch)).to.equal(400)
            expect(res.body.success).to.equal(false)
            expect(res.body.error, JSON.stringify(patch)).to.match(message)
        }
    })

    it('GET /api/token/info/:address and POST /api/token/info_by_address read any ERC-20 from the chain', async function () {
        const stable = f.chain.contracts.stable
        const info = await f.http.get(`/api/token/info/${stable}`, { user_id: 'minter' }, PWD)
        expect(info.status).to.equal(200)
        expect(info.body.data).to.deep.include({ address: stable, symbol: 'STABLE', decimals: 6, deployedByPlatform: false, platform: null })
        expect(info.body.data).to.have.keys('address', 'name', 'symbol', 'decimals', 'totalSupply', 'supply', 'deployedByPlatform', 'platform')
        const byBody = await f.http.post('/api/token/info_by_address', { user_id: 'minter', address: stable }, PWD)
        expect(byBody.body).to.deep.equal(info.body)
        expect((await f.http.post('/api/token/info_by_address', { user_id: 'minter', contractAddress: stable }, PWD)).body).to.deep.equal(info.body)

        const deployed = await f.http.post('/api/token/deploy', { user_id: 'minter', tokenName: 'Info', tokenSymbol: 'INF', totalSupply: '5', decimals: 2, destinationAddress: destination }, PWD)
        const mine = await f.http.get(`/api/token/info/${deployed.body.data.contractAddress}`, { user_id: 'minter' }, PWD)
        expect(mine.body.data).to.deep.include({ name: 'Info', symbol: 'INF', decimals: 2, totalSupply: '500', supply: '5', deployedByPlatform: true })
        expect(mine.body.data.platform.transactionHash).to.equal(deployed.body.data.transactionHash)

        expect((await f.http.get(`/api/token/info/${destination}`, { user_id: 'minter' }, PWD)).status).to.equal(400)
        expect((await f.http.get('/api/token/info/0x12', { user_id: 'minter' }, PWD)).status).to.equal(400)
        expect((await f.http.get(`/api/token/info/${stable}`, {}, PWD)).status).to.equal(400)
        expect((await f.http.post('/api/token/info_by_address', { user_id: 'minter' }, PWD)).status).to.equal(400)
    })

    it('a token reporting more than 255 decimals is refused with 422 naming the problem; 255 is served', async function () {
        // Runtime code answering every call with one word: PUSH4/PUSH1 <value>, MSTORE at 0, RETURN 32 bytes.
        const answering = (word: Hex): Hex => `0x${word.length === 4 ? '60' : '63'}${word.slice(2)}60005260206000f3`
        const huge = privateKeyToAccount(generatePrivateKey()).address
        await f.chain.client.request({ method: 'anvil_setCode' as any, params: [huge, answering('0x05f5e100')] as any })
        const refused = await f.http.get(`/api/token/info/${huge}`, { user_id: 'minter' }, PWD)
        expect(refused.status, JSON.stringify(refused.body)).to.equal(422)
        expect(refused.body.error).to.equal(`token ${huge} reports 100000000 decimals; at most 255 are supported`)

        const widest = privateKeyToAccount(generatePrivateKey()).address
        await f.chain.client.request({ method: 'anvil_setCode' as any, params: [widest, answering('0xff')] as any })
        const served = await f.http.get(`/api/token/info/${widest}`, { user_id: 'minter' }, PWD)
        expect(served.status, JSON.stringify(served.body)).to.equal(200)
        expect(served.body.data.decimals).to.equal(255)
    })

    it('GET /api/token/list and /api/token/tokens list what the platform deployed, newest first', async function () {
        const list = await f.http.get('/api/token/list', { user_id: 'minter' }, PWD)
        expect(list.status).to.equal(200)
        const symbols = list.body.data.tokens.map((t: any) => t.symbol)
        expect(symbols).to.deep.equal(['INF', 'TWO', 'PLN', 'GOLD'])
        expect(list.body.data.total).to.equal(4)
        expect(list.body.data.tokens[3]).to.deep.include({ name: 'Gold', decimals: 8, buyingFee: 200, sellingFee: 300, feeAddress: feeSink, mintable: true, deployer: wallet, destinationAddress: destination, supply: '1000000' })
        const tokens = await f.http.get('/api/token/tokens', { user_id: 'minter' }, PWD)
        expect(tokens.body).to.deep.equal(list.body)
        const page = await f.http.get('/api/token/list', { user_id: 'minter', limit: '2', offset: '1' }, PWD)
        expect(page.body.data.tokens.map((t: any) => t.symbol)).to.deep.equal(['TWO', 'PLN'])
        expect((await f.http.get('/api/token/list', { user_id: 'minter', limit: '0' }, PWD)).status).to.equal(400)
        expect((await f.http.get('/api/token/list', { user_id: 'minter', offset: 'x' }, PWD)).status).to.equal(400)
        expect((await f.http.get('/api/token/list', {}, PWD)).status).to.equal(400)
    })
})
