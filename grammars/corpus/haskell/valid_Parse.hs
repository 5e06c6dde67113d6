module Parse (parseInts, classify) where

import Data.Char (isDigit, isSpace)

parseInts :: String -> [Int]
parseInts s = case dropWhile isSpace s of
  "" -> []
  str ->
    let (digits, rest) = span isDigit str
     in if null digits
          then parseInts (drop 1 rest)
          else read digits : parseInts rest

classify :: Int -> String
classify n
  | n < 0 = "negative"
  | n == 0 = "zero"
  | otherwise = "positive"

evens :: [Int] -> [Int]
evens xs = [x | x <- xs, even x]

compose :: (b -> c) -> (a -> b) -> a -> c
compose f g = \x -> f (g x)
