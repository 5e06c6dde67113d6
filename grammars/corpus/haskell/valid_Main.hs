{-# LANGUAGE ScopedTypeVariables #-}
module Main where

import Control.Monad (forM_, when)
import System.Environment (getArgs)

data Shape = Circle Double | Rect Double Double
  deriving (Show)

class HasArea a where
  area :: a -> Double

instance HasArea Shape where
  area (Circle r) = pi * r * r
  area (Rect w h) = w * h

main :: IO ()
main = do
  args <- getArgs
  let shapes = [Circle 1, Rect 2 3]
      total = sum (map area shapes)
  when (null args) $ putStrLn "no args"
  forM_ (zip [1 :: Int ..] shapes) $ \(i, s) ->
    putStrLn (show i ++ ": " ++ show s)
  print total
