// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AmmPair} from "./AmmPair.sol";

/// @title Creates one pair per token couple, at a CREATE2 address derived from the sorted tokens
/// @notice Interface- and event-compatible with the Uniswap V2 factory.
contract AmmFactory {
    address public feeTo;
    address public feeToSetter;

    mapping(address => mapping(address => address)) public getPair;
    address[] public allPairs;

    event PairCreated(address indexed token0, address indexed token1, address pair, uint256);

    constructor(address feeToSetter_) {
        feeToSetter = feeToSetter_;
    }

    function allPairsLength() external view returns (uint256) {
        return allPairs.length;
    }

    /// @notice keccak256 of the pair's creation code, for computing pair addresses off-chain.
    function pairCodeHash() external pure returns (bytes32) {
        return keccak256(type(AmmPair).creationCode);
    }

    function createPair(address tokenA, address tokenB) external returns (address pair) {
        require(tokenA != tokenB, "AmmFactory: IDENTICAL_ADDRESSES");
        (address token0, address token1) = tokenA < tokenB ? (tokenA, tokenB) : (tokenB, tokenA);
        require(token0 != address(0), "AmmFactory: ZERO_ADDRESS");
        require(getPair[token0][token1] == address(0), "AmmFactory: PAIR_EXISTS");
        pair = address(new AmmPair{salt: keccak256(abi.encodePacked(token0, token1))}());
        AmmPair(pair).initialize(token0, token1);
        getPair[token0][token1] = pair;
        getPair[token1][token0] = pair;
        allPairs.push(pair);
        emit PairCreated(token0, token1, pair, allPairs.length);
    }

    function setFeeTo(address feeTo_) external {
        require(msg.sender == feeToSetter, "AmmFactory: FORBIDDEN");
        feeTo = feeTo_;
    }

    function setFeeToSetter(address feeToSetter_) external {
        require(msg.sender == feeToSetter, "AmmFactory: FORBIDDEN");
        feeToSetter = feeToSetter_;
    }
}
