"""Pure game domain: cards, hands, rules, scoring, money, arranging, Big Two. No I/O."""
