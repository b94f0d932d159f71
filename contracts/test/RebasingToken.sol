// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @dev Test token whose balances are shares times an index that rebase() changes without a Transfer log (stETH, AMPL style).
contract RebasingToken {
    string public constant name = "Rebasing Token";
    string public constant symbol = "REB";
    uint8 public constant decimals = 18;
    uint256 public index = 1e18;
    uint256 public totalShares;
    mapping(address => uint256) public sharesOf;

    event Transfer(address indexed from, address indexed to, uint256 value);

    function totalSupply() external view returns (uint256) {
        return totalShares * index / 1e18;
    }

    function balanceOf(address holder) external view returns (uint256) {
        return sharesOf[holder] * index / 1e18;
    }

    function mint(address to, uint256 value) external {
        uint256 shares = value * 1e18 / index;
        totalShares += shares;
        sharesOf[to] += shares;
        emit Transfer(address(0), to, value);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        uint256 shares = value * 1e18 / index;
        sharesOf[msg.sender] -= shares;
        sharesOf[to] += shares;
        emit Transfer(msg.sender, to, value);
        return true;
    }

    function rebase(uint256 newIndex) external {
        index = newIndex;
    }
}
