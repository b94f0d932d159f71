// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @dev Test token whose name() and decimals() revert; symbol() works.
contract RevertingNameToken {
    string public constant symbol = "RVT";
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;

    event Transfer(address indexed from, address indexed to, uint256 value);

    function name() external pure returns (string memory) {
        revert("no name");
    }

    function decimals() external pure returns (uint8) {
        revert();
    }

    function mint(address to, uint256 value) external {
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }
}
