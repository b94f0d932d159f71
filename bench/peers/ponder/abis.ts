import { parseAbi } from 'viem'

/**
 * The events Ponder indexes, with the signatures of abi/events/erc20.json and abi/events/amm.json
 * (PairCreated's unnamed count named, which Ponder's factory types need).
 */

export const erc20 = parseAbi(['event Transfer(address indexed from, address indexed to, uint256 value)'])

export const pairCreated = parseAbi(['event PairCreated(address indexed token0, address indexed token1, address pair, uint256 count)'])[0]

export const pair = parseAbi([
    'event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)',
])
