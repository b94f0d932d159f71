import { expect } from 'chai'
import { Abi, AbiEvent, AbiFunction, parseAbi, toEventSignature, toFunctionSignature } from 'viem'
import { abis } from '../../abi'

/**
 * The published Uniswap V2 interfaces (IUniswapV2Router02, IUniswapV2Factory, IUniswapV2Pair,
 * WETH9), written out as human-readable ABI. Tools that know Uniswap V2 decode our contracts
 * only if every one of these matches: name, parameter types, return types, payability, and
 * for events which parameters are indexed.
 */
const ROUTER02 = parseAbi([
    'function factory() view returns (address)',
    'function WETH() view returns (address)',
    'function addLiquidity(address tokenA, address tokenB, uint amountADesired, uint amountBDesired, uint amountAMin, uint amountBMin, address to, uint deadline) returns (uint amountA, uint amountB, uint liquidity)',
    'function addLiquidityETH(address token, uint amountTokenDesired, uint amountTokenMin, uint amountETHMin, address to, uint deadline) payable returns (uint amountToken, uint amountETH, uint liquidity)',
    'function removeLiquidity(address tokenA, address tokenB, uint liquidity, uint amountAMin, uint amountBMin, address to, uint deadline) returns (uint amountA, uint amountB)',
    'function removeLiquidityETH(address token, uint liquidity, uint amountTokenMin, uint amountETHMin, address to, uint deadline) returns (uint amountToken, uint amountETH)',
    'function removeLiquidityWithPermit(address tokenA, address tokenB, uint liquidity, uint amountAMin, uint amountBMin, address to, uint deadline, bool approveMax, uint8 v, bytes32 r, bytes32 s) returns (uint amountA, uint amountB)',
    'function removeLiquidityETHWithPermit(address token, uint liquidity, uint amountTokenMin, uint amountETHMin, address to, uint deadline, bool approveMax, uint8 v, bytes32 r, bytes32 s) returns (uint amountToken, uint amountETH)',
    'function removeLiquidityETHSupportingFeeOnTransferTokens(address token, uint liquidity, uint amountTokenMin, uint amountETHMin, address to, uint deadline) returns (uint amountETH)',
    'function removeLiquidityETHWithPermitSupportingFeeOnTransferTokens(address token, uint liquidity, uint amountTokenMin, uint amountETHMin, address to, uint deadline, bool approveMax, uint8 v, bytes32 r, bytes32 s) returns (uint amountETH)',
    'function swapExactTokensForTokens(uint amountIn, uint amountOutMin, address[] path, address to, uint deadline) returns (uint[] amounts)',
    'function swapTokensForExactTokens(uint amountOut, uint amountInMax, address[] path, address to, uint deadline) returns (uint[] amounts)',
    'function swapExactETHForTokens(uint amountOutMin, address[] path, address to, uint deadline) payable returns (uint[] amounts)',
    'function swapTokensForExactETH(uint amountOut, uint amountInMax, address[] path, address to, uint deadline) returns (uint[] amounts)',
    'function swapExactTokensForETH(uint amountIn, uint amountOutMin, address[] path, address to, uint deadline) returns (uint[] amounts)',
    'function swapETHForExactTokens(uint amountOut, address[] path, address to, uint deadline) payable returns (uint[] amounts)',
    'function swapExactTokensForTokensSupportingFeeOnTransferTokens(uint amountIn, uint amountOutMin, address[] path, address to, uint deadline)',
    'function swapExactETHForTokensSupportingFeeOnTransferTokens(uint amountOutMin, address[] path, address to, uint deadline) payable',
    'function swapExactTokensForETHSupportingFeeOnTransferTokens(uint amountIn, uint amountOutMin, address[] path, address to, uint deadline)',
    'function quote(uint amountA, uint reserveA, uint reserveB) pure returns (uint amountB)',
    'function getAmountOut(uint amountIn, uint reserveIn, uint reserveOut) pure returns (uint amountOut)',
    'function getAmountIn(uint amountOut, uint reserveIn, uint reserveOut) pure returns (uint amountIn)',
    'function getAmountsOut(uint amountIn, address[] path) view returns (uint[] amounts)',
    'function getAmountsIn(uint amountOut, address[] path) view returns (uint[] amounts)',
])

const FACTORY = parseAbi([
    'event PairCreated(address indexed token0, address indexed token1, address pair, uint)',
    'function feeTo() view returns (address)',
    'function feeToSetter() view returns (address)',
    'function getPair(address tokenA, address tokenB) view returns (address pair)',
    'function allPairs(uint) view returns (address pair)',
    'function allPairsLength() view returns (uint)',
    'function createPair(address tokenA, address tokenB) returns (address pair)',
    'function setFeeTo(address)',
    'function setFeeToSetter(address)',
])

const PAIR = parseAbi([
    'event Approval(address indexed owner, address indexed spender, uint value)',
    'event Transfer(address indexed from, address indexed to, uint value)',
    'event Mint(address indexed sender, uint amount0, uint amount1)',
    'event Burn(address indexed sender, uint amount0, uint amount1, address indexed to)',
    'event Swap(address indexed sender, uint amount0In, uint amount1In, uint amount0Out, uint amount1Out, address indexed to)',
    'event Sync(uint112 reserve0, uint112 reserve1)',
    'function name() pure returns (string)',
    'function symbol() pure returns (string)',
    'function decimals() pure returns (uint8)',
    'function totalSupply() view returns (uint)',
    'function balanceOf(address owner) view returns (uint)',
    'function allowance(address owner, address spender) view returns (uint)',
    'function approve(address spender, uint value) returns (bool)',
    'function transfer(address to, uint value) returns (bool)',
    'function transferFrom(address from, address to, uint value) returns (bool)',
    'function DOMAIN_SEPARATOR() view returns (bytes32)',
    'function PERMIT_TYPEHASH() pure returns (bytes32)',
    'function nonces(address owner) view returns (uint)',
    'function permit(address owner, address spender, uint value, uint deadline, uint8 v, bytes32 r, bytes32 s)',
    'function MINIMUM_LIQUIDITY() pure returns (uint)',
    'function factory() view returns (address)',
    'function token0() view returns (address)',
    'function token1() view returns (address)',
    'function getReserves() view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)',
    'function price0CumulativeLast() view returns (uint)',
    'function price1CumulativeLast() view returns (uint)',
    'function kLast() view returns (uint)',
    'function mint(address to) returns (uint liquidity)',
    'function burn(address to) returns (uint amount0, uint amount1)',
    'function swap(uint amount0Out, uint amount1Out, address to, bytes data)',
    'function skim(address to)',
    'function sync()',
    'function initialize(address, address)',
])

const WETH9 = parseAbi([
    'event Deposit(address indexed dst, uint wad)',
    'event Withdrawal(address indexed src, uint wad)',
    'event Approval(address indexed src, address indexed guy, uint wad)',
    'event Transfer(address indexed src, address indexed dst, uint wad)',
    'function deposit() payable',
    'function withdraw(uint wad)',
    'function totalSupply() view returns (uint)',
    'function balanceOf(address) view returns (uint)',
    'function allowance(address, address) view returns (uint)',
    'function approve(address guy, uint wad) returns (bool)',
    'function transfer(address dst, uint wad) returns (bool)',
    'function transferFrom(address src, address dst, uint wad) returns (bool)',
])

/** What a decoder depends on; parameter names and view/pure do not matter to it. */
function shape(item: AbiFunction | AbiEvent): string {
    if (item.type === 'event') {
        return `${toEventSignature(item)} indexed:${item.inputs.map((i) => Boolean(i.indexed)).join(',')}`
    }
    const outputs = item.outputs.map((o) => o.type).join(',')
    return `${toFunctionSignature(item)} returns (${outputs})${item.stateMutability === 'payable' ? ' payable' : ''}`
}

function shapes(abi: Abi): string[] {
    return abi.filter((item): item is AbiFunction | AbiEvent => item.type === 'function' || item.type === 'event').map(shape)
}

describe('Uniswap V2 interface compatibility', () => {
    const cases: [string, Abi, Abi][] = [
        ['AmmRouter matches IUniswapV2Router02', abis.AmmRouter, ROUTER02],
        ['AmmFactory matches IUniswapV2Factory', abis.AmmFactory, FACTORY],
        ['AmmPair matches IUniswapV2Pair', abis.AmmPair, PAIR],
        ['WNative matches WETH9', abis.WNative, WETH9],
    ]
    for (const [title, ours, reference] of cases) {
        it(title, () => {
            expect(shapes(ours)).to.include.members(shapes(reference))
        })
    }

    it('the router exposes nothing beyond Router02, so no tool meets an unknown selector', () => {
        expect(shapes(abis.AmmRouter)).to.have.members(shapes(ROUTER02))
    })
})
