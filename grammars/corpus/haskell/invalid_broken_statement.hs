module Main where

f :: Int -> Int
f x = x + * 2
