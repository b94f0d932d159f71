// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @dev The bare ERC-20 of the odd test tokens: balances, mint and transfer, no metadata (each adds its own oddity).
abstract contract MinimalToken {
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;

    event Transfer(address indexed from, address indexed to, uint256 value);

    function mint(address to, uint256 value) external {
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function transfer(address to, uint256 value) external virtual returns (bool) {
        balanceOf[msg.sender] -= value;
        balanceOf[to] += value;
        emit Transfer(msg.sender, to, value);
        return true;
    }
}
