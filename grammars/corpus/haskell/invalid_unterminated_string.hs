module Main where

main :: IO ()
main = putStrLn "never closed
