// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import "./MinimalToken.sol";

/// @dev Test token taking 2% of every transfer for a fee collector, each part its own Transfer log.
contract FeeOnTransferToken is MinimalToken {
    string public constant name = "Fee Token";
    string public constant symbol = "FEE";
    uint8 public constant decimals = 18;
    address public constant FEE_COLLECTOR = address(0xfEE0000000000000000000000000000000000000);

    function transfer(address to, uint256 value) external override returns (bool) {
        uint256 fee = value / 50;
        balanceOf[msg.sender] -= value;
        balanceOf[to] += value - fee;
        balanceOf[FEE_COLLECTOR] += fee;
        emit Transfer(msg.sender, to, value - fee);
        emit Transfer(msg.sender, FEE_COLLECTOR, fee);
        return true;
    }
}
