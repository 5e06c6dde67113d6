<?php

interface Shape
{
    public function area(): float;
}

abstract class Base implements Shape
{
    protected static int $count = 0;

    public function __toString(): string
    {
        return static::class . '(' . number_format($this->area(), 2) . ')';
    }
}

trait Loggable
{
    public function log(string $msg): void
    {
        error_log(sprintf('[%s] %s', date('c'), $msg));
    }
}

function total(Shape ...$shapes): float
{
    $sum = 0.0;
    foreach ($shapes as $s) {
        $sum += $s->area();
    }
    return $sum;
}

enum Suit: string
{
    case Hearts = 'H';
    case Spades = 'S';
}

$closure = function (int $x) use (&$sum) { return $x * 2; };
