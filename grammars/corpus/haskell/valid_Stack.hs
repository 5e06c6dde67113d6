module Data.Stack
  ( Stack
  , empty
  , push
  , pop
  ) where

import qualified Data.List as L
import Data.Maybe (fromMaybe)

newtype Stack a = Stack [a]
  deriving (Show, Eq)

empty :: Stack a
empty = Stack []

push :: a -> Stack a -> Stack a
push x (Stack xs) = Stack (x : xs)

pop :: Stack a -> Maybe (a, Stack a)
pop (Stack []) = Nothing
pop (Stack (x : xs)) = Just (x, Stack xs)

size :: Stack a -> Int
size (Stack xs) = L.genericLength xs

top :: a -> Stack a -> a
top d s = fromMaybe d (fst <$> pop s)
