// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @dev Test token taking 2% of every transfer for a fee collector, each part its own Transfer log.
contract FeeOnTransferToken {
    string public constant name = "Fee Token";
    string public constant symbol = "FEE";
    uint8 public constant decimals = 18;
    address public constant FEE_COLLECTOR = address(0xfEE0000000000000000000000000000000000000);
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;

    event Transfer(address indexed from, address indexed to, uint256 value);

    function mint(address to, uint256 value) external {
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        uint256 fee = value / 50;
        balanceOf[msg.sender] -= value;
        balanceOf[to] += value - fee;
        balanceOf[FEE_COLLECTOR] += fee;
        emit Transfer(msg.sender, to, value - fee);
        emit Transfer(msg.sender, FEE_COLLECTOR, fee);
        return true;
    }
}
